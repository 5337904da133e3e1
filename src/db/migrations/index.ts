import * as init from './001_init.js';

/** Ordered; a migration once released is never edited, only followed by a new one. */
export const migrations: ReadonlyArray<{ id: string; sql: string }> = [{ id: '001_init', sql: init.sql }];
