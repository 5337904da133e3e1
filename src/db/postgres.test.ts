/**
 * A connection lost in the middle of a transaction, between two statements: the transaction
 * fails with DatabaseUnavailableError and the process lives on (the pg client emits an 'error'
 * event then, which unlistened would be an uncaught exception).
 */
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freshDatabase, postgresAvailable } from '../../test/support/databases.js';
import { DatabaseUnavailableError, type Database } from './client.js';

describe.runIf(await postgresAvailable())('PostgreSQL transactions', () => {
  let db: Database;
  let url: string;
  let drop: () => Promise<void>;

  beforeAll(async () => {
    const fresh = await freshDatabase('postgres');
    db = fresh.db;
    url = fresh.url!;
    drop = fresh.drop;
  });
  afterAll(async () => {
    await drop?.();
  });

  it('a connection killed between statements fails the transaction, not the process, and the next one works', async () => {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      const attempt = db.transaction(async (tx) => {
        const { pid } = (await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid'))[0]!;
        await admin.query('SELECT pg_terminate_backend($1)', [pid]);
        // the server's goodbye arrives while no statement of ours is running
        await new Promise((resolve) => setTimeout(resolve, 200));
        await tx.query('SELECT 1');
      });
      await expect(attempt).rejects.toBeInstanceOf(DatabaseUnavailableError);
      const rows = await db.transaction((tx) => tx.query<{ ok: number }>('SELECT 1 AS ok'));
      expect(rows).toEqual([{ ok: 1 }]);
    } finally {
      await admin.end();
    }
  });
});

describe.runIf(await postgresAvailable())('PostgreSQL statements planned once (QueryOptions.genericPlan)', () => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase('postgres'));
  });
  afterAll(async () => {
    await drop?.();
  });

  const settings = async (on: Database, options: { prepare?: boolean; genericPlan?: boolean }) =>
    (
      await on.query<{ mode: string; timeout: string }>(
        `SELECT current_setting('plan_cache_mode') AS mode, current_setting('statement_timeout') AS timeout WHERE $1::int = 1`,
        [1],
        options,
      )
    )[0]!;

  it('run on connections that always use the generic plan; every other statement keeps the server default', async () => {
    expect((await settings(db, { prepare: true, genericPlan: true })).mode).toBe('force_generic_plan');
    expect((await settings(db, { prepare: true })).mode).toBe('auto');
    expect((await settings(db, {})).mode).toBe('auto');
    // (genericPlan without prepare: an unnamed statement is planned per call anyway)
    expect((await settings(db, { genericPlan: true })).mode).toBe('auto');
  });

  it('keep the statement timeout of the API pool they run in', async () => {
    const timed = db.withStatementTimeout!(1_234);
    try {
      expect(await settings(timed, { prepare: true, genericPlan: true })).toEqual({ mode: 'force_generic_plan', timeout: '1234ms' });
      expect(await settings(timed, { prepare: true })).toEqual({ mode: 'auto', timeout: '1234ms' });
    } finally {
      await timed.close();
    }
  });
});
