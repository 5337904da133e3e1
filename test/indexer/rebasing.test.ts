/**
 * Rebasing tokens against a real rebasing contract on anvil (contracts/RebasingToken.sol, built
 * like stETH): a rebase changes every balance and emits nothing. The indexer must reflect it
 * fully within the documented bound (2 × rebasingSweepBatches batches), read only the touched
 * holders plus one slice of the sweep per batch (not every holder), and have every holder a
 * batch touches exact in that very batch. Ground truth: the contract's balanceOf at the block
 * the database says it indexed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, numberToHex, type Address } from 'viem';
import type { Database } from '../../src/db/client.js';
import type { Hex } from '../../src/db/rows.js';
import { contracts } from '../../src/devnet/artifacts.js';
import { deployRebasingToken, moveTokens, rebase, type RebasingToken } from '../../src/devnet/rebasing.js';
import { MIN_SLICE } from '../../src/indexer/rebasing.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { rpcBatch } from '../support/crash-harness.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { startIndexer, type RunningIndexer } from '../support/indexer-harness.js';
import { startRpcCounter, type RpcCounter } from '../support/rpc-counter.js';

const HOLDERS = 3_000;
const SWEEP_BATCHES = 6;
const SLICE = Math.max(MIN_SLICE, Math.ceil(HOLDERS / SWEEP_BATCHES));
const BOUND = 2 * SWEEP_BATCHES;

/** Holders whose stored balance differs from balanceOf at the indexed block. */
async function stale(db: Database, url: string, token: RebasingToken): Promise<{ block: bigint; wrong: Address[] }> {
  const [progress] = await db.query<{ block: string }>('SELECT indexed_block::text AS block FROM chains');
  const block = BigInt(progress!.block);
  const rows = await db.query<{ holder: string; value: string }>(
    `SELECT '0x' || encode(holder, 'hex') AS holder, value::text AS value FROM token_balances WHERE token = $1`,
    [Buffer.from(token.address.slice(2), 'hex')],
  );
  const ours = new Map(rows.map((r) => [r.holder, BigInt(r.value)]));
  const abi = contracts.RebasingToken.abi;
  const answers = await rpcBatch<Hex>(
    url,
    token.holders.map((h) => ({
      method: 'eth_call',
      params: [{ to: token.address, data: encodeFunctionData({ abi, functionName: 'balanceOf', args: [h] }) }, numberToHex(block)],
    })),
  );
  const wrong = token.holders.filter((h, i) => ours.get(h.toLowerCase()) !== BigInt(answers[i]!));
  return { block, wrong };
}

describe.each(await availableEngines())('a rebasing token on %s', (engine) => {
  let node: TestNode;
  let counter: RpcCounter;
  let token: RebasingToken;
  let db: Database;
  let drop: () => Promise<void>;
  let indexer: RunningIndexer;
  /** balanceOf calls the indexer made in each batch, in order */
  const callsPerBatch: number[] = [];
  let before = 0;

  beforeAll(async () => {
    node = await startTestNode();
    token = await deployRebasingToken(node, { holders: HOLDERS, perTx: 1_000, seed: engine });
    counter = await startRpcCounter(node.url);
    ({ db, drop } = await freshDatabase(engine));
    indexer = await startIndexer(db, counter.url, {
      chain: { rebasingTokens: [token.address.toLowerCase() as Hex], rebasingSweepBatches: SWEEP_BATCHES },
      indexer: {
        minBatchBlocks: 1,
        maxBatchBlocks: 1,
        onBatch: () => {
          const now = counter.count('balanceOf');
          callsPerBatch.push(now - before);
          before = now;
        },
      },
    });
    await indexer.caughtUp({ node: node.url, timeoutMs: 120_000 });
  }, 240_000);
  afterAll(async () => {
    await indexer?.stop();
    await drop?.();
    await counter?.close();
    await node?.stop();
  });

  it('reflects a rebase (no events) in every balance within 2 × rebasingSweepBatches batches', async () => {
    await rebase(node, token.address, 11n, 10n);
    // the batch of the rebase's own block is the first after it
    await indexer.caughtUp({ node: node.url });
    let batches = 1;
    let wrong = (await stale(db, node.url, token)).wrong.length;
    const history = [wrong];
    while (wrong > 0 && batches < BOUND + 5) {
      await node.mine(1);
      await indexer.caughtUp({ node: node.url });
      batches += 1;
      wrong = (await stale(db, node.url, token)).wrong.length;
      history.push(wrong);
    }
    console.log(`[rebasing ${engine}] ${HOLDERS} holders, sweep over ${SWEEP_BATCHES} batches: stale holders after each batch ${history.join(', ')}`);
    // one slice per batch: the rebase is not all there after one batch, and all there within the bound
    expect(history[0]).toBeGreaterThan(0);
    expect(wrong).toBe(0);
    expect(batches).toBeLessThanOrEqual(BOUND);
    // and it stays exact
    await node.mine(2);
    await indexer.caughtUp({ node: node.url });
    expect((await stale(db, node.url, token)).wrong).toEqual([]);
  }, 180_000);

  it('reads one slice of the sweep per batch plus the touched holders, not every holder', async () => {
    const start = callsPerBatch.length;
    const [a, b, c] = token.holders;
    await rebase(node, token.address, 21n, 20n);
    await moveTokens(node, token.address, [
      { from: a!, to: b!, amount: 10n ** 18n },
      { from: c!, to: b!, amount: 2n * 10n ** 18n },
    ]);
    for (let i = 0; i < 3; i++) {
      await node.mine(1);
      await indexer.caughtUp({ node: node.url });
    }
    const recent = callsPerBatch.slice(start);
    console.log(`[rebasing ${engine}] balanceOf calls per batch: ${recent.join(', ')} (slice ${SLICE}, holders ${HOLDERS})`);
    expect(recent.length).toBeGreaterThanOrEqual(3);
    // at most a slice, the three touched holders, and the last batch of a pass taking what remains
    for (const calls of recent) expect(calls).toBeLessThanOrEqual(SLICE + 3 + MIN_SLICE);
    expect(Math.max(...recent)).toBeLessThan(HOLDERS / 2);
  }, 120_000);

  it('has every holder a batch touches exact in that batch', async () => {
    const [, , , d, e] = token.holders;
    await rebase(node, token.address, 31n, 30n);
    await moveTokens(node, token.address, [{ from: d!, to: e!, amount: 5n * 10n ** 18n }]);
    await indexer.caughtUp({ node: node.url });
    const { wrong } = await stale(db, node.url, token);
    expect(wrong).not.toContain(d);
    expect(wrong).not.toContain(e);
  }, 60_000);
});
