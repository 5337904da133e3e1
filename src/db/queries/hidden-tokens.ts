import type { Hex } from '../rows.js';

/**
 * The condition that leaves out of a list the tokens a request may not see (the restricted
 * ones, api/plugins/chain-scope.ts), passed as one text[] parameter of hex without `0x`: one
 * statement for any number of them, none included.
 */
export const notHiddenSql = (column: string, param: string) => `${column} NOT IN (SELECT decode(h, 'hex') FROM unnest(${param}::text[]) h)`;

/** The parameter `notHiddenSql` reads. */
export const hiddenArg = (hidden: readonly Hex[] | undefined): string[] => (hidden ?? []).map((h) => h.slice(2));
