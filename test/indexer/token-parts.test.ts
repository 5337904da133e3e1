/**
 * The backfill's write in token parts (src/indexer/write-parts.ts), PostgreSQL only (PGlite has
 * one connection and writes each batch in one transaction), against a real anvil: a crash
 * between the parts' commits and the batch's own leaves parts ahead of the indexed block, and
 * the next start must end equal to the node at every block, whether the node still has the
 * batch the parts wrote, has replaced it, or has replaced the indexed tip below it too; and a
 * database fault at that moment is retried in place.
 *
 * The crash is the database refusing everything from the batch's progress statement on (the
 * parts committed, the batch's transaction not): what a SIGKILL there leaves, at a moment a
 * signal cannot be aimed at.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database, Queryable } from '../../src/db/client.js';
import { partsAhead } from '../../src/db/queries/token-parts.js';
import { indexedBlock } from '../../src/db/queries/progress.js';
import { generateActivity } from '../../src/devnet/scenario.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { DEVNET_CHAIN_ID as CHAIN, startIndexer, type RunningIndexer } from '../support/indexer-harness.js';
import { indexedState, nodeTransferCounts, sortedEntries, truthClient } from '../support/ground-truth.js';
import { buildHistoryChain, servedAt, truthAt, type HistoryChain } from '../support/history-truth.js';

const WINDOW = 4;
/** one block per batch, so the crash falls on the batch the test aims at */
const ONE_BLOCK = { minBatchBlocks: 1, maxBatchBlocks: 1 };

/**
 * `db` as the indexer sees it until the crash: the first time a batch ending at `at` or later
 * writes its progress after its token parts committed, that statement fails, and with `mode`
 * 'crash' every transaction after it too (the process is gone); with 'fault', only that one.
 */
function failingAfterParts(db: Database, at: bigint, mode: 'crash' | 'fault') {
  const state = { failed: false, partsInBatch: false };
  const refuse = () => Promise.reject(new Error('simulated crash: the database refuses the write'));
  const watch = (q: Queryable): Queryable => ({
    query(text, params, options) {
      if (mode === 'crash' && state.failed) return refuse();
      if (text.startsWith('UPDATE token_parts SET')) state.partsInBatch = true;
      if (text.startsWith('UPDATE chains SET indexed_block')) {
        const hit = state.partsInBatch && !state.failed && BigInt(String(params?.[1])) >= at;
        state.partsInBatch = false;
        if (hit) {
          state.failed = true;
          return refuse();
        }
      }
      return q.query(text, params, options);
    },
  });
  const wrapped: Database = {
    ...db,
    query: (text, params, options) => watch(db).query(text, params, options),
    transaction: (fn, options) => (mode === 'crash' && state.failed ? refuse() : db.transaction((tx) => fn(watch(tx)), options)),
  };
  return { db: wrapped, state };
}

async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** `fn` on a throwaway PostgreSQL database of its own, dropped after it. */
async function onFreshDatabase(fn: (database: Awaited<ReturnType<typeof freshDatabase>>) => Promise<void>): Promise<void> {
  const database = await freshDatabase('postgres');
  try {
    await fn(database);
  } finally {
    await database.drop();
  }
}

const engines = (await availableEngines()).filter((e) => e === 'postgres');

describe.runIf(engines.length > 0)('token parts ahead of the indexed block, on postgres', () => {
  let node: TestNode;
  let chain: HistoryChain;
  const truth = () => truthClient(node.url);

  beforeAll(async () => {
    node = await startTestNode();
    chain = await buildHistoryChain(node, 'parts');
  }, 180_000);
  afterAll(async () => {
    await node?.stop();
  });

  /** Blocks of transfers on top of the chain; the crash aims at one of them, below the reorg window. */
  async function moreActivity(seed: string): Promise<{ head: bigint; aim: bigint }> {
    await generateActivity(node, chain.scenario, { maxBlocks: 10, blocksPerSecond: 1_000, txsPerBlock: 6, seed }).done;
    const head = await node.public.getBlockNumber();
    return { head, aim: head - BigInt(WINDOW) - 2n };
  }

  async function expectEqualToNode(db: Database, blocks: readonly bigint[]): Promise<void> {
    for (const block of blocks) {
      const ours = await servedAt(db, block);
      const node = await truthAt(truth(), block);
      expect(sortedEntries(ours.balances), `balances at ${block}`).toEqual(sortedEntries(node.balances));
      expect(sortedEntries(ours.counts), `holder counts at ${block}`).toEqual(sortedEntries(node.holderCounts));
    }
  }

  /**
   * Each token's transfers at the head, as the node's logs count them: every one when no part was
   * set back; after a set-back (`inexact`), unknown (null) for some tokens and the node's for the rest.
   */
  async function expectTransferCounts(db: Database, { inexact = false } = {}): Promise<void> {
    const said = await nodeTransferCounts(truth(), await node.public.getBlockNumber(), [chain.scenario.weth]);
    const ours = (await indexedState(db, CHAIN)).transferCounts;
    const known = new Map([...ours].filter(([, n]) => n !== null));
    if (inexact) expect(known.size).toBeLessThan(ours.size);
    else expect(ours.size).toBeGreaterThan(3);
    expect(sortedEntries(known)).toEqual(sortedEntries(new Map([...said].filter(([t]) => inexact ? known.has(t) : true))));
  }

  /** Indexes through `failingAfterParts` until it fails at `aim`, then stops; returns what the crash left. */
  async function crashAt(db: Database, aim: bigint) {
    const failing = failingAfterParts(db, aim, 'crash');
    const run = await startIndexer(failing.db, node.url, { chain: { reorgWindow: WINDOW }, indexer: ONE_BLOCK });
    try {
      await until(() => failing.state.failed, `the write at block ${aim}`);
    } finally {
      await run.stop();
    }
    const [tip, ahead] = await Promise.all([indexedBlock(db, CHAIN), partsAhead(db, CHAIN)]);
    // the parts of the batch at `aim` are in, its progress is not
    expect(tip?.number).toBe(aim - 1n);
    expect(ahead?.block).toBe(aim);
    const moved = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM token_balances WHERE chain_id = $1 AND block_number = $2', [CHAIN, aim.toString()]);
    expect(Number(moved[0]!.n)).toBeGreaterThan(0);
    return { tip: tip!.number };
  }

  async function resume(db: Database): Promise<RunningIndexer> {
    const run = await startIndexer(db, node.url, { chain: { reorgWindow: WINDOW }, indexer: ONE_BLOCK });
    await run.caughtUp();
    return run;
  }

  const committed = (run: RunningIndexer) => run.logger.entries.filter((e) => e.msg === 'batch committed').map((e) => BigInt(String(e.obj.indexed)));

  it('resumes by writing the batch again for the parts behind, when the node still has it', async () => {
    const { head, aim } = await moreActivity('parts:same');
    await onFreshDatabase(async (database) => {
      await crashAt(database.db, aim);
      const run = await resume(database.db);
      await run.stop();
      // the batch the parts were ahead in is the first written, and nothing was set back
      expect(committed(run)[0]).toBe(aim);
      expect(run.logger.find('set back')).toEqual([]);
      expect(run.logger.find('reorg rolled back')).toEqual([]);
      expect(await partsAhead(database.db, CHAIN)).toBeNull();
      await expectEqualToNode(database.db, [aim - 1n, aim, aim + 1n, head]);
      await expectTransferCounts(database.db);
    });
  }, 180_000);

  it('retries in place when the database refuses the batch after its parts, with no part written twice', async () => {
    const { head, aim } = await moreActivity('parts:fault');
    await onFreshDatabase(async (database) => {
      const failing = failingAfterParts(database.db, aim, 'fault');
      const run = await startIndexer(failing.db, node.url, { chain: { reorgWindow: WINDOW }, indexer: ONE_BLOCK });
      await run.caughtUp();
      await run.stop();
      expect(failing.state.failed).toBe(true);
      expect(run.logger.find('indexing step failed')).toHaveLength(1);
      expect(committed(run).filter((b) => b === aim)).toEqual([aim]);
      await expectEqualToNode(database.db, [aim - 1n, aim, head]);
      await expectTransferCounts(database.db);
    });
  }, 180_000);

  it('refuses a wider batch over the parts ahead when it could not read them, and then writes their batch', async () => {
    const { head, aim } = await moreActivity('parts:stale');
    await onFreshDatabase(async (database) => {
      await crashAt(database.db, aim);
      // the new start cannot see the parts ahead once (their read answers nothing, as after a
      // read that failed), and takes batches of three blocks: the first overlaps theirs
      let hidden = false;
      const blind: Database = {
        ...database.db,
        query: (text, params, options) => {
          if (!hidden && text.includes('FROM token_parts p JOIN chains c')) {
            hidden = true;
            return Promise.resolve([]);
          }
          return database.db.query(text, params, options);
        },
      };
      const run = await startIndexer(blind, node.url, { chain: { reorgWindow: WINDOW }, indexer: { minBatchBlocks: 3, maxBatchBlocks: 3 } });
      await run.caughtUp().finally(() => run.stop());
      expect(hidden).toBe(true);
      const refused = run.logger.find('indexing step failed');
      expect(refused, run.logger.tail(30)).toHaveLength(1);
      expect(String(refused[0]!.obj.err ?? JSON.stringify(refused[0]!.obj))).toContain('inside the batch');
      expect(committed(run)[0]).toBe(aim);
      await expectEqualToNode(database.db, [aim - 1n, aim, aim + 1n, head]);
      await expectTransferCounts(database.db);
    });
  }, 180_000);

  it.each([
    { change: 'replaced the batch the parts wrote', belowTip: 0n, path: 'set back' },
    { change: 'replaced the indexed tip below it too', belowTip: 1n, path: 'reorg rolled back' },
    { change: 'dropped the batch, its head now the indexed tip', belowTip: 0n, path: 'set back', dropped: true },
  ])('ends equal to the node when it has $change', async ({ belowTip, path, dropped }) => {
    const { aim } = await moreActivity(`parts:reorg:${belowTip}:${dropped ?? false}`);
    await onFreshDatabase(async (database) => {
      const { tip } = await crashAt(database.db, aim);
      // the node replaces (or drops) every block from the crash's batch (and, in the second
      // case, the tip below it) to its head: what the parts wrote never happened
      const depth = Number((await node.public.getBlockNumber()) - tip + belowTip);
      if (dropped) await node.rollback(depth);
      else await node.reorg(depth);
      const nodeHead = await node.public.getBlockNumber();
      const run = await resume(database.db);
      // dropped to the tip, the node's head is caught up with at the start: the parts are set back after it
      await until(async () => (await partsAhead(database.db, CHAIN)) === null, 'the parts set back').finally(() => run.stop());
      const taken = run.logger.find(path);
      expect(taken, run.logger.tail(30)).toHaveLength(1);
      if (path === 'reorg rolled back') expect(taken[0]!.obj.exact).toBe(false);
      expect(await partsAhead(database.db, CHAIN)).toBeNull();
      await expectEqualToNode(database.db, [...new Set([tip - 1n, tip, aim, nodeHead])].filter((b) => b <= nodeHead));
      await expectTransferCounts(database.db, { inexact: true });
    });
  }, 180_000);
});
