/**
 * /health from what the indexer leaves in the database: ok, a failing step, a silent indexer, a
 * chain too far behind, an unreachable database; and its cost for an unauthenticated flood.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Database } from '../../src/db/client.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { clearIndexerFailure, recordIndexerFailure } from '../../src/db/queries/indexer-status.js';
import { setHeadBlock, setIndexedBlock } from '../../src/db/queries/progress.js';
import { buildServer } from '../../src/api/server.js';
import { openPostgres } from '../../src/db/postgres.js';
import { apiConfig } from '../support/api.js';
import { availableEngines, freshDatabase } from '../support/databases.js';

describe.each(await availableEngines())('/health (%s)', (engine) => {
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let db: Database;
  let queries = 0;

  beforeAll(async () => {
    fresh = await freshDatabase(engine);
    // counts the statements the API sends, to see what /health costs
    db = { ...fresh.db, query: (...args: Parameters<Database['query']>) => (queries++, fresh.db.query(...args)) } as Database;
    await ensureChain(fresh.db, 1);
    await ensureChain(fresh.db, 10);
  });
  afterAll(() => fresh?.drop());

  /** a fresh server each time: the registry and the answer are cached for a second or two */
  async function health(limits: { healthMaxLag?: number; healthStaleMs?: number } = {}) {
    const app = await buildServer({ db, api: apiConfig({ healthMaxLag: 100, healthStaleMs: 60_000, ...limits }) });
    try {
      const res = await app.inject({ url: '/health' });
      return { status: res.statusCode, body: res.json() };
    } finally {
      await app.close();
    }
  }
  const chain = (body: any, id: number) => body.chains.find((c: any) => c.chain_id === id);

  it('ok: both chains at their head, polled just now', async () => {
    for (const id of [1, 10]) {
      await setIndexedBlock(fresh.db, id, 500n);
      await setHeadBlock(fresh.db, id, 502n);
    }
    const { status, body } = await health();
    expect(status).toBe(200);
    expect(body.status).toBe('ok');
    expect(chain(body, 1)).toMatchObject({ status: 'ok', indexed_block: 500, head_block: 502, lag: 2, reasons: [], backfilling: false });
    expect(Date.now() - Date.parse(chain(body, 1).polled_at)).toBeLessThan(60_000);
  });

  it('a failed indexing step: 503 with the reason, until a step succeeds', async () => {
    await recordIndexerFailure(fresh.db, 10, 'rpc');
    const failing = await health();
    expect(failing.status).toBe(503);
    expect(failing.body.status).toBe('degraded');
    expect(chain(failing.body, 1).status).toBe('ok');
    expect(chain(failing.body, 10)).toMatchObject({ status: 'degraded' });
    expect(chain(failing.body, 10).reasons).toEqual([expect.stringMatching(/^indexing has been failing since \d{4}-\d\d-\d\dT.*Z: the RPC node failed$/)]);
    await clearIndexerFailure(fresh.db, 10);
    expect((await health()).status).toBe(200);
  });

  it('a chain stopped with its node behind the index (a reset node): the negative lag is explained', async () => {
    await setIndexedBlock(fresh.db, 10, 505n);
    await setHeadBlock(fresh.db, 10, 0n);
    await recordIndexerFailure(fresh.db, 10, 'stopped');
    const { status, body } = await health();
    expect(status).toBe(503);
    expect(chain(body, 10)).toMatchObject({ status: 'degraded', indexed_block: 505, head_block: 0, lag: -505 });
    expect(chain(body, 10).reasons).toEqual([
      expect.stringMatching(/^indexing has been failing since .*: the indexer stopped on an error it does not retry/),
      "the node's head (0) is below the indexed block (505): the node was reset, or the URL now serves another chain",
    ]);
    await clearIndexerFailure(fresh.db, 10);
    await setIndexedBlock(fresh.db, 10, 500n);
    await setHeadBlock(fresh.db, 10, 502n);
    // on a working chain a head below the index is a reorg being rolled back, or a provider's
    // backend behind the others: no reason of its own, and 0 blocks behind
    await setHeadBlock(fresh.db, 1, 499n);
    const working = await health();
    expect(chain(working.body, 1)).toMatchObject({ status: 'ok', head_block: 499, lag: 0, reasons: [] });
    await setHeadBlock(fresh.db, 1, 502n);
    expect((await health()).status).toBe(200);
  });

  it('a chain whose node was reached but with nothing indexed yet is degraded, unless the lag check is off', async () => {
    await ensureChain(fresh.db, 20);
    try {
      await setHeadBlock(fresh.db, 20, 843n);
      const waiting = await health();
      expect(waiting.status).toBe(503);
      expect(chain(waiting.body, 20)).toMatchObject({ status: 'degraded', indexed_block: null, head_block: 843, lag: null });
      expect(chain(waiting.body, 20).reasons).toEqual(["nothing indexed yet; the node's head is block 843"]);
      expect(chain((await health({ healthMaxLag: 0 })).body, 20)).toMatchObject({ status: 'ok', reasons: [] });
    } finally {
      await setIndexedBlock(fresh.db, 20, 843n);
    }
    expect((await health()).status).toBe(200);
  });

  it('?chain_id= judges only the chains listed: one chain failing takes out only its own probes', async () => {
    await recordIndexerFailure(fresh.db, 10, 'rpc');
    try {
      const app = await buildServer({ db, api: apiConfig({ healthMaxLag: 100, healthStaleMs: 60_000 }) });
      try {
        const probe = async (query: string) => {
          const res = await app.inject({ url: `/health${query}` });
          return { status: res.statusCode, body: res.json() };
        };
        const one = await probe('?chain_id=1');
        expect([one.status, one.body.status, one.body.chains.map((c: any) => c.chain_id)]).toEqual([200, 'ok', [1]]);
        const both = await probe('?chain_id=1,10');
        expect([both.status, both.body.chains.map((c: any) => [c.chain_id, c.status])]).toEqual([503, [[1, 'ok'], [10, 'degraded']]]);
        expect((await probe('')).status).toBe(503);
        // a chain this database does not index is no chain to send traffic for
        const unknown = await probe('?chain_id=1,777');
        expect([unknown.status, chain(unknown.body, 777)?.reasons]).toEqual([503, ['this chain is not indexed in this database']]);
        for (const bad of ['abc', '0', '1,,2', '-1', '1'.repeat(16)]) expect([bad, (await probe(`?chain_id=${bad}`)).status]).toEqual([bad, 422]);
        // a probe's own parameters are no error
        expect((await probe('?chain_id=1&_=123')).status).toBe(200);
      } finally {
        await app.close();
      }
    } finally {
      await clearIndexerFailure(fresh.db, 10);
    }
  });

  /** The chains' table held by another transaction: the registry's read of it waits until `release`. */
  async function holdChains(): Promise<() => Promise<void>> {
    if (fresh.url === null) {
      let free!: () => void;
      const held = fresh.db.transaction(() => new Promise<void>((resolve) => (free = resolve)));
      return async () => {
        free();
        await held;
      };
    }
    const client = new pg.Client({ connectionString: fresh.url });
    await client.connect();
    await client.query('BEGIN');
    await client.query('LOCK TABLE chains IN ACCESS EXCLUSIVE MODE');
    return async () => {
      await client.query('ROLLBACK');
      await client.end();
    };
  }

  it("a database that stops answering (a lock on chains, a hung server): /health answers within a second from its last read, then says so", async () => {
    const app = await buildServer({ db, api: apiConfig({ healthMaxLag: 100, healthStaleMs: 60_000, statementTimeoutMs: 0 }) });
    const probe = async () => {
      const started = Date.now();
      const res = await app.inject({ url: '/health' });
      return { status: res.statusCode, body: res.json(), ms: Date.now() - started };
    };
    try {
      expect((await probe()).status).toBe(200);
      const release = await holdChains();
      try {
        await sleep(2_200); // the registry's read is due again
        const first = await probe();
        expect([first.status, first.body.status, first.ms < 2_000]).toEqual([200, 'ok', true]);
        await sleep(5_600);
        const silent = await probe();
        expect([silent.status, silent.ms < 2_000]).toEqual([503, true]);
        expect(silent.body).toEqual({ status: 'unavailable', reasons: [expect.stringMatching(/^the database has not answered for [5-9] s$/)], chains: [] });
      } finally {
        await release();
      }
      await vi.waitFor(async () => expect((await probe()).status).toBe(200), { timeout: 5_000, interval: 300 });
    } finally {
      await app.close();
    }
  }, 30_000);

  it('a probe after a quiet spell judges the chains as they are now, not as the read the last probe left (operator review: probes a minute apart were all 503)', async () => {
    const app = await buildServer({ db, api: apiConfig({ healthMaxLag: 100, healthStaleMs: 3_000 }) });
    try {
      await fresh.db.query('UPDATE chains SET polled_at = now()');
      expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
      // the indexer's heartbeat goes on while nobody asks
      for (let i = 0; i < 8; i++) {
        await sleep(500);
        await fresh.db.query('UPDATE chains SET polled_at = now()');
      }
      const later = await app.inject({ url: '/health' });
      expect([later.statusCode, later.json().status]).toEqual([200, 'ok']);
    } finally {
      await app.close();
    }
  }, 30_000);

  it.runIf(engine === 'postgres')("every connection of the API's pool busy: /health answers within a second, then names the pool, not the database", async () => {
    const small = await openPostgres(fresh.url!, 1);
    const app = await buildServer({ db: small, api: apiConfig({ healthMaxLag: 100, healthStaleMs: 60_000, statementTimeoutMs: 0 }) });
    try {
      expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
      let free!: () => void;
      const held = small.transaction(() => new Promise<void>((resolve) => (free = resolve)));
      try {
        await sleep(2_200);
        const started = Date.now();
        expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
        expect(Date.now() - started).toBeLessThan(2_000);
        // the pool's 5-s wait for a connection ends the read
        await vi.waitFor(async () => {
          const res = await app.inject({ url: '/health' });
          expect([res.statusCode, res.json().reasons]).toEqual([503, [expect.stringMatching(/^every database connection of this process stayed busy/)]]);
        }, { timeout: 8_000, interval: 250 });
      } finally {
        free();
        await held;
      }
      await vi.waitFor(async () => expect((await app.inject({ url: '/health' })).statusCode).toBe(200), { timeout: 5_000, interval: 300 });
    } finally {
      await app.close();
      await small.close();
    }
  }, 30_000);

  it('no chain indexed at all (a reader started before its writer ever ran): 503 saying so', async () => {
    const empty = await freshDatabase(engine);
    const app = await buildServer({ db: empty.db, api: apiConfig() });
    try {
      const res = await app.inject({ url: '/health' });
      expect([res.statusCode, res.json()]).toEqual([503, { status: 'degraded', reasons: ['no chain is indexed in this database yet'], chains: [] }]);
    } finally {
      await app.close();
      await empty.drop();
    }
  });

  it('lag past the threshold: 503; 0 turns the check off', async () => {
    await setHeadBlock(fresh.db, 1, 700n);
    const behind = await health({ healthMaxLag: 150 });
    expect(behind.status).toBe(503);
    expect(chain(behind.body, 1).reasons).toEqual(['indexing is 200 blocks behind the node (limit 150)']);
    expect((await health({ healthMaxLag: 200 })).status).toBe(200);
    expect((await health({ healthMaxLag: 0 })).status).toBe(200);
    await setHeadBlock(fresh.db, 1, 502n);
  });

  it('an indexer that stopped checking in (its node gone, or a step stuck): 503 after the threshold; a never-polled chain is not judged', async () => {
    await fresh.db.query(`UPDATE chains SET polled_at = now() - interval '90 seconds' WHERE chain_id = 1`);
    const silent = await health();
    expect(silent.status).toBe(503);
    expect(chain(silent.body, 1).reasons).toEqual([
      expect.stringMatching(/^the indexer has not checked in for (89|9\d) s \(limit 60 s\): its node out of reach, or a step stuck \(a database lock waited on, a call that hangs\)$/),
    ]);
    expect((await health({ healthStaleMs: 0 })).status).toBe(200);
    // never polled, with blocks indexed (a database filled elsewhere): not judged
    await fresh.db.query('UPDATE chains SET polled_at = NULL WHERE chain_id = 1');
    expect((await health()).status).toBe(200);
  });

  it('a chain added to be indexed whose node was never reached: 503 once the threshold has passed since it was added', async () => {
    await ensureChain(fresh.db, 77);
    try {
      expect((await health()).status).toBe(200);
      await fresh.db.query(`UPDATE chains SET updated_at = now() - interval '70 seconds' WHERE chain_id = 77`);
      const waiting = await health();
      expect(waiting.status).toBe(503);
      expect(chain(waiting.body, 77).reasons).toEqual([expect.stringMatching(/^the indexer has not reached its node since the chain was added (69|7\d) s ago \(limit 60 s\)$/)]);
      expect((await health({ healthStaleMs: 0 })).status).toBe(200);
    } finally {
      await fresh.db.query('DELETE FROM chains WHERE chain_id = 77');
    }
  });

  it('an Arbitrum parent follower that stopped reaching the parent node: said beside its figures, the chain still ok', async () => {
    await fresh.db.query(
      `INSERT INTO arbitrum_parent (chain_id, parent_chain_id, sequencer_inbox, outbox, indexed_block, head_block, polled_at)
       VALUES (10, 1, '\\x01', '\\x02', 29, 29, now())`,
    );
    const reached = await health();
    expect(chain(reached.body, 10).parent).toMatchObject({ indexed_block: 29, head_block: 29, lag: 0, reasons: [] });
    await fresh.db.query(`UPDATE arbitrum_parent SET polled_at = now() - interval '90 seconds' WHERE chain_id = 10`);
    const silent = await health();
    expect(silent.status).toBe(200);
    expect(chain(silent.body, 10)).toMatchObject({ status: 'ok', reasons: [] });
    expect(chain(silent.body, 10).parent.reasons).toEqual([
      expect.stringMatching(/^the parent chain follower has not reached its node for (89|9\d) s \(limit 60 s\): head_block and lag are as of polled_at$/),
    ]);
    await fresh.db.query('DELETE FROM arbitrum_parent WHERE chain_id = 10');
  });

  it('cheap: a flood of unauthenticated requests costs one query a second or two', async () => {
    const app = await buildServer({ db, api: apiConfig() });
    try {
      const before = queries;
      const started = Date.now();
      for (let i = 0; i < 500; i++) expect((await app.inject({ url: '/health' })).statusCode).toBe(200);
      const seconds = (Date.now() - started) / 1000;
      // the registry reads chains and restricted addresses together, at most every 2 s
      expect(queries - before).toBeLessThanOrEqual(2 * (Math.ceil(seconds / 2) + 1));
    } finally {
      await app.close();
    }
  });
});

describe('/health without a database', () => {
  it('503 unavailable, naming the database', async () => {
    const fresh = await freshDatabase('pglite');
    await fresh.db.close(); // every statement now fails as a connection failure
    const app = await buildServer({ db: fresh.db, api: apiConfig() });
    try {
      const res = await app.inject({ url: '/health' });
      expect(res.statusCode).toBe(503);
      expect(res.json()).toEqual({ status: 'unavailable', reasons: ['the database cannot be reached'], chains: [] });
    } finally {
      await app.close();
    }
  });
});
