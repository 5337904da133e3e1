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
