/**
 * The real `explorer index` process killed with SIGKILL on the backfill path (issue 14), on both
 * engines: once after a commit of its own while the chain's page indexes are still deferred, once
 * the moment it says it is building them (the hand-over), once after it reached the head. After
 * every kill the database must equal the node at the block it says it indexed and the next
 * process must resume right after it; the deferred indexes must be there once a process passed the
 * hand-over, whether the kill fell inside the build (each index commits on its own: those built
 * stay, the rest are built by the next process) or after.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { partitionState, type PartitionState } from '../../src/db/chain-partitions.js';
import { listChains } from '../../src/db/queries/chains.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import {
  buildCrashChain,
  compareWithNode,
  crashTarget,
  describeReport,
  isPipelineStart,
  killHard,
  mismatchCount,
  spawnIndexer,
  type CrashChain,
  type LogLine,
} from '../support/crash-harness.js';
import { availableEngines } from '../support/databases.js';

const CHAIN_ID = 31337;
/** PGlite's first start runs initdb, and a restart replays the WAL: slow on a busy 2-core machine */
const TIMEOUT_MS = 300_000;

type Aim = 'deferred' | 'hand-over' | 'at head';

const waitsFor: Record<Aim, (head: bigint) => (l: LogLine) => boolean> = {
  // a commit still more than the reorg window (64) behind: the page indexes are not built yet
  deferred: () => (l) => l.msg === 'batch committed' && Number(l.behind) > 100,
  'hand-over': () => (l) => l.msg === 'backfill: building page indexes',
  // or started past it: the run before may have reached the head before its kill landed
  'at head': (head) => (l) => (l.msg === 'batch committed' && BigInt(String(l.indexed)) >= head) || (isPipelineStart(l) && BigInt(String(l.from)) > head),
};

const engines = await availableEngines();

describe('the backfill path under SIGKILL', () => {
  let node: TestNode;
  let chain: CrashChain;

  beforeAll(async () => {
    node = await startTestNode();
    chain = await buildCrashChain(node, {
      bulk: { transfers: 6_000, tokens: 3, holders: 600, transfersPerTx: 20, txsPerBlock: 2, seed: 'backfill-crash' },
      miners: 2,
      emptyBlocks: 400,
      scenarioBlocks: 20,
      seed: 'backfill-crash',
    });
  }, 300_000);
  afterAll(async () => {
    await node?.stop();
  });

  it.each(engines)(
    'on %s: killed with the indexes deferred, at the hand-over and at the head, it ends equal to the node with the indexes built',
    async (engine) => {
      const target = await crashTarget(engine);
      const check = async (db: Parameters<Parameters<typeof target.inspect>[0]>[0]) => {
        const [report, state, chains] = await Promise.all([
          compareWithNode(db, { url: node.url, chainId: CHAIN_ID, holdings: chain.holdings, balanceOfTokens: chain.balanceOfTokens }),
          partitionState(db, CHAIN_ID),
          listChains(db),
        ]);
        // what /health shows (`backfilling`) is what the indexer goes by
        expect(chains.find((c) => c.chainId === CHAIN_ID)?.backfilling).toBe(state === 'backfilling');
        return [report, state] as const;
      };
      try {
        const seen: Array<{ aim: Aim; state: PartitionState; indexed: bigint | null; from: bigint | null; report: string; mismatches: number }> = [];
        for (const aim of ['deferred', 'hand-over', 'at head'] as const) {
          const p = spawnIndexer({ chainId: CHAIN_ID, rpcUrl: node.url, dataDir: target.dataDir, databaseUrl: target.databaseUrl, env: { LOG_LEVEL: 'debug' } });
          try {
            await p.waitForLog(waitsFor[aim](chain.head), TIMEOUT_MS);
          } finally {
            expect((await killHard(p)).signal, p.output()).toBe('SIGKILL');
          }
          const [report, state] = (await target.inspect(check))!;
          const start = p.logs.find(isPipelineStart);
          seen.push({ aim, state, indexed: report.indexedBlock, from: start ? BigInt(String(start.from)) : null, report: describeReport(report), mismatches: mismatchCount(report) });
        }
        console.log(`backfill under SIGKILL on ${engine}:\n${seen.map((s) => `  ${s.aim}: from ${s.from} → ${s.indexed}, ${s.state}, ${s.report}`).join('\n')}`);
        expect(seen.filter((s) => s.mismatches > 0).map((s) => s.report)).toEqual([]);
        // each process resumed right after what the one before it committed
        expect(seen.slice(1).map((s) => s.from)).toEqual(seen.slice(0, -1).map((s) => (s.indexed ?? -1n) + 1n));
        expect(seen[0]!.state).toBe('backfilling');
        expect(seen[0]!.indexed).toBeGreaterThanOrEqual(0n);
        // a kill inside the build leaves the chain backfilling (the indexes built so far stay), and the next process builds the rest
        expect(['backfilling', 'indexed']).toContain(seen[1]!.state);
        expect(seen[2]!.state).toBe('indexed');
        expect(seen[2]!.indexed).toBeGreaterThanOrEqual(chain.head);
      } finally {
        await target.drop();
      }
    },
    900_000,
  );
});
