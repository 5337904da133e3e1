import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { buildServer } from '../../src/api/server.js';
import { DatabaseUnavailableError, type Database } from '../../src/db/client.js';
import { freshDatabase } from '../support/databases.js';
import { apiConfig, TEST_KEY } from '../support/api.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { addressOf } from '../support/seed.js';

/** A database outage fails every request alike: each is a 503, but its trace is logged once, with a count, not per request. */
describe('a database outage in the log', () => {
  it('200 requests during an outage: 200 × 503, one error line with its trace', async () => {
    const fresh = await freshDatabase('pglite');
    await ensureChain(fresh.db, 1);
    let down = false;
    const db: Database = { ...fresh.db, query: (...args: Parameters<Database['query']>) => (down ? Promise.reject(new DatabaseUnavailableError(new Error('connection refused'))) : fresh.db.query(...args)) } as Database;
    let logged = '';
    const sink = new Writable({ write: (chunk, _enc, done) => ((logged += chunk.toString()), done()) });
    const app = await buildServer({ db, api: apiConfig(), logger: pino({ level: 'info' }, sink) });
    try {
      const url = `/1/api/v2/addresses/${addressOf(1, 'outage')}/blocks-validated?apikey=${TEST_KEY}`;
      expect((await app.inject({ url })).statusCode).toBe(200);
      down = true;
      const statuses = await Promise.all(Array.from({ length: 200 }, () => app.inject({ url }).then((r) => r.statusCode)));
      expect(statuses.filter((s) => s === 503)).toHaveLength(200);
      const errors = logged.split('\n').filter(Boolean).map((l) => JSON.parse(l)).filter((l) => l.msg === 'database unavailable');
      expect(errors).toHaveLength(1);
      expect(errors[0].err.message).toBe('connection refused');
    } finally {
      await app.close();
      await fresh.drop();
    }
  });
});
