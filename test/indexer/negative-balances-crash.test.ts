/**
 * No negative balance ever reaches the database, whenever the real `explorer index` process is
 * killed with SIGKILL. The chain: a rebasing token (contracts/RebasingToken.sol) that the indexer
 * is NOT told about; after two rebases, holders send their whole (rebased) balance, so by its
 * events alone a sender's balance goes below zero in many batches. The repair (balanceOf at the
 * batch's block) must commit with the batch: the indexer is killed at the moment its first
 * balanceOf call reaches the node (held there for a while, so the kill lands during the repair),
 * and at seeded random moments, on PGlite and PostgreSQL; after every kill the database must hold
 * no negative balance, and at the end every sender's balance equals balanceOf.
 *
 * RELIABILITY_FULL=1 kills 20 times per engine (default 6), half of them at a balanceOf.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, numberToHex, type Address } from 'viem';
import type { Database } from '../../src/db/client.js';
import type { Hex } from '../../src/db/rows.js';
import { contracts } from '../../src/devnet/artifacts.js';
import { createRng } from '../../src/devnet/random.js';
import { deployRebasingToken, moveAll, rebase, type RebasingToken } from '../../src/devnet/rebasing.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { crashTarget, isPipelineStart, killHard, rpcBatch, spawnIndexer, type LogLine } from '../support/crash-harness.js';
import { availableEngines } from '../support/databases.js';
import { isBalanceOf, startRpcCounter, type RpcCounter } from '../support/rpc-counter.js';

const CHAIN_ID = 31337;
const FULL = process.env.RELIABILITY_FULL === '1';
const KILLS = FULL ? 20 : 6;
const SENDERS = 24;
/** how long the relay holds a balanceOf call: the window a kill during the repair lands in */
const HOLD_MS = 500;
const START_TIMEOUT_MS = 180_000;

const reachedHead = (head: bigint) => (l: LogLine) =>
  (isPipelineStart(l) && BigInt(String(l.from)) > head) || (l.msg === 'indexing' && l.behind === 0 && String(l.indexed) === head.toString());

async function negativeBalances(db: Database): Promise<number> {
  const [row] = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM token_balances WHERE value < 0');
  return Number(row!.n);
}

describe.each(await availableEngines())('negative balances and kill -9 on %s', (engine) => {
  let node: TestNode;
  let relay: RpcCounter;
  let token: RebasingToken;
  let head: bigint;
  const senders: Address[] = [];

  beforeAll(async () => {
    node = await startTestNode();
    token = await deployRebasingToken(node, { holders: SENDERS * 2, perTx: SENDERS * 2, seed: `negative:${engine}` });
    await rebase(node, token.address, 3n, 2n);
    await rebase(node, token.address, 4n, 3n);
    // each sender sends everything it has, a few blocks apart: one batch after another finds a
    // balance its events say is 1,000 tokens going out as 2,000
    for (let i = 0; i < SENDERS; i++) {
      await moveAll(node, token.address, token.holders[i]!, token.holders[SENDERS + i]!);
      senders.push(token.holders[i]!);
      await node.mine(4);
    }
    head = await node.public.getBlockNumber();
    relay = await startRpcCounter(node.url);
    relay.delay(isBalanceOf, HOLD_MS);
  }, 180_000);
  afterAll(async () => {
    await relay?.close();
    await node?.stop();
  });

  it('leaves no negative balance whenever the process dies, and ends with the senders at balanceOf', async () => {
    const target = await crashTarget(engine);
    const rng = createRng(`negative-crash:${engine}`);
    const report: string[] = [];
    let repairs = 0;
    const repairsIn = (p: { logs: LogLine[] }) => p.logs.filter((l) => l.msg === 'balances that would go negative set from balanceOf').length;
    try {
      for (let run = 0; run < KILLS; run++) {
        const proc = spawnIndexer({ chainId: CHAIN_ID, rpcUrl: relay.url, dataDir: target.dataDir, databaseUrl: target.databaseUrl });
        const atRepair = run % 2 === 0;
        let how: string;
        if (atRepair) {
          // the moment the repair's first balanceOf reaches the node: the batch that needs it is
          // written by now if it was committed without it
          const killed = new Promise<void>((resolve) => {
            const off = relay.onCall(isBalanceOf, () => {
              off();
              proc.child.kill('SIGKILL');
              resolve();
            });
            void proc.exited.then(() => {
              off();
              resolve();
            });
          });
          await Promise.race([killed, proc.waitForLog(reachedHead(head), START_TIMEOUT_MS).then(() => undefined)]);
          how = 'at a balanceOf';
        } else {
          await proc.waitForLog(isPipelineStart, START_TIMEOUT_MS);
          const delay = Math.round(rng.next() * 6 * HOLD_MS);
          await sleep(delay);
          how = `${delay} ms after the pipeline started`;
        }
        const ended = await killHard(proc);
        repairs += repairsIn(proc);
        expect(ended.signal, `run ${run} ended on its own: ${proc.output()}`).toBe('SIGKILL');
        const negatives = await target.inspect(negativeBalances);
        const [progress] = (await target.inspect((db) => db.query<{ b: string | null }>('SELECT indexed_block::text AS b FROM chains'))) ?? [];
        report.push(`kill ${run + 1} ${how}: indexed ${progress?.b ?? '-'}, negative balances ${negatives ?? '-'}`);
        expect(negatives ?? 0, report.join('\n')).toBe(0);
      }

      const last = spawnIndexer({ chainId: CHAIN_ID, rpcUrl: relay.url, dataDir: target.dataDir, databaseUrl: target.databaseUrl });
      await last.waitForLog(reachedHead(head), START_TIMEOUT_MS + 120_000);
      await killHard(last);
      repairs += repairsIn(last);
      const { negatives, stored } = (await target.inspect(async (db) => ({ negatives: await negativeBalances(db), stored: await balancesOf(db, token.address, senders) })))!;
      console.log(`[negative-balances ${engine}] ${report.join('; ')}; at the head: ${negatives} negative balances, ${repairs} repairs in all runs`);
      expect(negatives).toBe(0);
      expect(repairs).toBeGreaterThan(0);
      const truth = await nodeBalances(node.url, token.address, senders, head);
      expect(stored).toEqual(truth);
    } finally {
      await target.drop();
    }
  }, 900_000);
});

async function balancesOf(db: Database, token: Address, holders: readonly Address[]): Promise<bigint[]> {
  const rows = await db.query<{ holder: string; value: string }>(
    `SELECT '0x' || encode(holder, 'hex') AS holder, value::text AS value FROM token_balances WHERE token = $1`,
    [Buffer.from(token.slice(2), 'hex')],
  );
  const byHolder = new Map(rows.map((r) => [r.holder, BigInt(r.value)]));
  return holders.map((h) => byHolder.get(h.toLowerCase()) ?? 0n);
}

async function nodeBalances(url: string, token: Address, holders: readonly Address[], block: bigint): Promise<bigint[]> {
  const abi = contracts.RebasingToken.abi;
  const answers = await rpcBatch<Hex>(
    url,
    holders.map((h) => ({ method: 'eth_call', params: [{ to: token, data: encodeFunctionData({ abi, functionName: 'balanceOf', args: [h] }) }, numberToHex(block)] })),
  );
  return answers.map((a) => BigInt(a));
}
