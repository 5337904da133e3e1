/**
 * `/stats`'s "today" sums are kept per tip (src/api/day-totals.ts) instead of summed per request.
 * Checked against the node's blocks at each step that moves them: the first read, the tip moving
 * on (only the new blocks read), the 24 hours sliding past a block between two requests at the
 * same tip, and a reorg that replaces the held tip with a longer branch.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Address } from 'viem';
import { useTestNode } from '../support/anvil.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { DEVNET_CHAIN_ID, indexToHead } from '../support/indexer-harness.js';
import { truthClient } from '../support/ground-truth.js';

const DAY = 86_400n;
const wallSeconds = () => BigInt(Math.floor(Date.now() / 1000));
const SINK = '0x00000000000000000000000000000000005e1f00' as Address;

describe.each(await availableEngines())('/stats today sums kept per tip on %s', (engine) => {
  // genesis two days back: its blocks are outside the 24 hours
  const nodeOf = useTestNode({ args: ['--timestamp', String(wallSeconds() - 2n * DAY)] });
  let fresh: Awaited<ReturnType<typeof freshDatabase>>;
  let api: TestApi;
  /** the one block stamped just inside the 24 hours: it slides out while the test runs */
  let edge: bigint;
  /** the later of the two edge blocks' timestamps: one block a transfer, so on a busy machine a second after `edge` */
  let edgeLast: bigint;

  const dbNow = async () => BigInt((await fresh.db.query<{ n: string }>('SELECT extract(epoch FROM now())::bigint::text AS n'))[0]!.n);

  /** The node's consensus blocks since `cutoff`, added up as /stats states them. */
  async function truthSince(cutoff: bigint): Promise<{ transactions_today: string; gas_used_today: string }> {
    const truth = truthClient(nodeOf().url);
    const head = await truth.getBlockNumber();
    const blocks = await Promise.all(Array.from({ length: Number(head) + 1 }, (_, i) => truth.getBlock({ blockNumber: BigInt(i) })));
    const today = blocks.filter((b) => b.timestamp >= cutoff);
    return {
      transactions_today: String(today.reduce((n, b) => n + b.transactions.length, 0)),
      gas_used_today: today.reduce((n, b) => n + b.gasUsed, 0n).toString(),
    };
  }

  /** /stats against the node, for the database clock read just before and just after it. */
  async function expectTruth(): Promise<{ transactions_today: string; gas_used_today: string }> {
    const before = await dbNow();
    const res = await api.get(`/${DEVNET_CHAIN_ID}/api/v2/stats`);
    const after = await dbNow();
    expect(res.status).toBe(200);
    const got = { transactions_today: res.body.transactions_today, gas_used_today: res.body.gas_used_today };
    const candidates = [await truthSince(before - DAY), await truthSince(after - DAY)];
    expect(candidates).toContainEqual(got);
    return got;
  }

  const transfers = async (n: number) => {
    for (let i = 0; i < n; i++) await nodeOf().send({ to: SINK });
  };

  beforeAll(async () => {
    fresh = await freshDatabase(engine);
    api = await startTestApi(engine, { db: fresh.db });
    await transfers(3);
    // one block just inside the 24 hours, which leaves them some seconds into the test (after
    // indexing a dozen blocks, well before the slide test waits for it); the database and the
    // API are made first, so that the seconds the slide test waits are few
    edge = wallSeconds() - DAY + 12n;
    await nodeOf().setNextBlockTimestamp(edge);
    await transfers(2);
    edgeLast = (await truthClient(nodeOf().url).getBlock()).timestamp;
    await nodeOf().setNextBlockTimestamp(wallSeconds());
    await transfers(2);
    await indexToHead(fresh.db, nodeOf().url);
  }, 120_000);
  afterAll(async () => {
    await api?.close();
    await fresh?.drop();
  });

  it('the first read and the tip moving on: the node\'s blocks of the last 24 hours', async () => {
    expect((await dbNow()) - DAY + 5n).toBeLessThan(edge);
    const first = await expectTruth();
    expect(BigInt(first.transactions_today)).toBeGreaterThan(0n);
    await transfers(3);
    await indexToHead(fresh.db, nodeOf().url);
    const next = await expectTruth();
    // the edge block is still inside: the three new transfers are added to what was held
    expect(BigInt(next.transactions_today)).toBe(BigInt(first.transactions_today) + 3n);
  });

  it('the 24 hours slide past a block between two requests at one tip', async () => {
    const inside = await expectTruth();
    while ((await dbNow()) - DAY <= edgeLast) await new Promise((r) => setTimeout(r, 250));
    const outside = await expectTruth();
    // the edge blocks' two transfers are gone, with nothing indexed in between
    expect(BigInt(outside.transactions_today)).toBe(BigInt(inside.transactions_today) - 2n);
  }, 90_000);

  it('a reorg replacing the held tip: the new branch\'s blocks, none of the old', async () => {
    const fork = await nodeOf().snapshot();
    await transfers(2);
    await indexToHead(fresh.db, nodeOf().url);
    await expectTruth();
    await nodeOf().revert(fork);
    await transfers(4);
    await indexToHead(fresh.db, nodeOf().url);
    await expectTruth();
  }, 60_000);
});
