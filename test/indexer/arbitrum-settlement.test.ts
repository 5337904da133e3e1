/**
 * Arbitrum settlement against two real chains: a parent anvil running the real Bridge,
 * SequencerInbox and Outbox of @arbitrum/nitro-contracts (rollup: a stand-in, see
 * test/support/arbitrum/StandIns.sol) with a batch poster posting real batches — calldata with
 * several header bytes, a blob batch (type 3, real KZG sidecar), a batch posted by a contract — for
 * ranges of a child anvil's blocks, and the rollup confirming child blocks. Every child block's
 * nine `arbitrum` fields as served must equal what the two chains say: the batch transactions'
 * receipts and the messages they posted, the parent blocks' timestamps, its `safe` block, the
 * confirmed block hashes, and the child node's header fields. Both engines.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { setMaxListeners } from 'node:events';
import type { Hex, TransactionReceipt } from 'viem';
import { availableEngines, freshDatabase, type Engine } from '../support/databases.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { startIndexer, waitFor, CapturingLogger, type RunningIndexer } from '../support/indexer-harness.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { testBlobs } from '../support/blobs.js';
import { BatchPoster, confirmChildBlock, deployParentRollup, type ParentRollup } from '../support/arbitrum/rollup.js';
import { arbitrumHeader, startArbitrumChildProxy } from '../support/arbitrum/child-node.js';
import { chainKindTasks } from '../../src/chains/index.js';
import { createRpcClient } from '../../src/rpc/client.js';
import { isoTimestamp } from '../../src/api/views/block.js';
import type { Database } from '../../src/db/client.js';
import type { ArbitrumSettlementConfig } from '../../src/chains/arbitrum/config.js';

const CHILD_CHAIN_ID = 412_346;
const SHIFT = 1n;
const CHILD_BLOCKS = 12n;

/** What the test posted and confirmed: the ground truth the served fields are held against. */
interface Posted {
  batch: bigint;
  prev: bigint;
  next: bigint;
  /** the container the batch's data header byte means (the table) */
  container: string | null;
  receipt: TransactionReceipt;
}

interface Confirmed {
  childBlock: bigint;
  receipt: TransactionReceipt;
}

async function parentTx(parent: TestNode, receipt: TransactionReceipt, safe: bigint) {
  const block = await parent.public.getBlock({ blockNumber: receipt.blockNumber });
  return {
    hash: receipt.transactionHash,
    status: safe >= receipt.blockNumber ? 'finalized' : 'unfinalized',
    timestamp: isoTimestamp(block.timestamp),
  };
}

/** The nine fields of child block `n`, from the two chains alone. */
async function expectedFields(parent: TestNode, n: bigint, posted: readonly Posted[], confirmed: readonly Confirmed[]) {
  const safe = (await parent.public.getBlock({ blockTag: 'safe' })).number;
  const batch = posted.find((p) => p.prev + SHIFT <= n && n <= p.next + SHIFT - 1n) ?? null;
  const confirmation = [...confirmed].sort((a, b) => Number(a.childBlock - b.childBlock)).find((c) => c.childBlock >= n) ?? null;
  const header = arbitrumHeader(n);
  const commitment = batch ? await parentTx(parent, batch.receipt, safe) : null;
  const confirmationTx = confirmation ? await parentTx(parent, confirmation.receipt, safe) : null;
  return {
    batch_number: batch ? Number(batch.batch) : null,
    status: confirmationTx ? 'Confirmed on base' : commitment ? 'Sent to base' : batch ? 'Sealed on rollup' : 'Processed on rollup',
    batch_data_container: batch?.container ?? null,
    commitment_transaction: commitment,
    confirmation_transaction: confirmationTx,
    delayed_messages: 0,
    l1_block_number: Number(BigInt(header.l1BlockNumber)),
    send_count: Number(BigInt(header.sendCount)),
    send_root: header.sendRoot,
  };
}

async function followerCaughtUp(db: Database, parent: TestNode): Promise<void> {
  await waitFor(
    async () => {
      const head = await parent.public.getBlockNumber();
      const safe = (await parent.public.getBlock({ blockTag: 'safe' })).number;
      const rows = await db.query<{ indexed: string | null; safe: string | null }>(
        'SELECT indexed_block::text AS indexed, safe_block::text AS safe FROM arbitrum_parent WHERE chain_id = $1',
        [CHILD_CHAIN_ID],
      );
      const r = rows[0];
      return r && r.indexed === head.toString() && r.safe === safe.toString() ? true : undefined;
    },
    () => 'the settlement follower to reach the parent head',
    60_000,
  );
}

/** Every child block through the single-block route, and the ones on the first blocks-validated page. */
async function servedFields(api: TestApi, child: TestNode) {
  const served = new Map<bigint, unknown>();
  for (let n = 0n; n <= CHILD_BLOCKS; n++) {
    const res = await api.get(`/${CHILD_CHAIN_ID}/api/v2/blocks/${n}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    served.set(n, res.body.arbitrum);
  }
  const miner = (await child.public.getBlock({ blockNumber: 1n })).miner;
  const page = await api.get(`/${CHILD_CHAIN_ID}/api/v2/addresses/${miner}/blocks-validated`);
  expect(page.status).toBe(200);
  for (const item of page.body.items as { height: number; arbitrum: unknown }[]) {
    expect(item.arbitrum, `blocks-validated item ${item.height}`).toEqual(served.get(BigInt(item.height)));
  }
  return served;
}

async function expectAllBlocks(api: TestApi, parent: TestNode, child: TestNode, posted: Posted[], confirmed: Confirmed[]) {
  const served = await servedFields(api, child);
  for (let n = 0n; n <= CHILD_BLOCKS; n++) {
    expect(served.get(n), `child block ${n}`).toEqual(await expectedFields(parent, n, posted, confirmed));
  }
  return served;
}

interface Running {
  indexer: RunningIndexer;
  stop(): Promise<void>;
}

/** The child's pipeline and the Arbitrum kind's task, wired as `startIndexers` wires them. */
async function startArbitrumIndexer(db: Database, childUrl: string, settlement: ArbitrumSettlementConfig): Promise<Running> {
  const logger = new CapturingLogger();
  const indexer = await startIndexer(db, childUrl, { chain: { chainId: CHILD_CHAIN_ID, arbitrum: settlement }, logger });
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  const clients: ReturnType<typeof createRpcClient>[] = [];
  const tasks = chainKindTasks({
    db,
    chain: indexer.chain,
    rpc: indexer.rpc,
    logger,
    createRpc: (urls) => {
      const c = createRpcClient({ chainId: CHILD_CHAIN_ID, urls, logger, retry: { baseDelayMs: 20, maxDelayMs: 500, urlCooldownMs: 1_000 } });
      clients.push(c);
      return c;
    },
  });
  expect(tasks).toHaveLength(1);
  const done = Promise.all(tasks.map((t) => t(controller.signal)));
  return {
    indexer,
    async stop() {
      controller.abort();
      await done;
      await indexer.stop();
    },
  };
}

const engines = await availableEngines();

describe.each(engines)('Arbitrum settlement from a real parent chain on %s', (engine: Engine) => {
  let parent: TestNode;
  let child: TestNode;
  let proxy: Awaited<ReturnType<typeof startArbitrumChildProxy>>;
  let contracts: ParentRollup;
  let settlement: ArbitrumSettlementConfig;

  beforeAll(async () => {
    // safe = head − 4: a transaction turns final 4 parent blocks after its own
    parent = await startTestNode({ hardfork: 'cancun', args: ['--slots-in-an-epoch', '4'] });
    child = await startTestNode({ chainId: CHILD_CHAIN_ID });
    proxy = await startArbitrumChildProxy(child.url);
    contracts = await deployParentRollup(parent);
    await child.mine(Number(CHILD_BLOCKS));
    settlement = { rollup: contracts.rollup.toLowerCase() as Hex, parentRpcUrls: [parent.url], parentStartBlock: 0n, messagesToBlocksShift: SHIFT };
  }, 120_000);

  afterAll(async () => {
    await proxy?.close();
    await child?.stop();
    await parent?.stop();
  });

  it('every child block\'s nine fields equal what the two chains say, as batches and confirmations arrive', async () => {
    const { db, drop } = await freshDatabase(engine);
    const api = await startTestApi(engine, { db });
    const running = await startArbitrumIndexer(db, proxy.url, settlement);
    try {
      await running.indexer.caughtUp({ node: child.url });
      await followerCaughtUp(db, parent);
      const posted: Posted[] = [];
      const confirmed: Confirmed[] = [];
      let served = await expectAllBlocks(api, parent, child, posted, confirmed);
      expect((served.get(5n) as { status: string }).status).toBe('Processed on rollup');

      const poster = new BatchPoster(parent, contracts);
      posted.push({ ...(await poster.calldata(4n, '0x00')), container: 'in_calldata' });
      posted.push({ ...(await poster.calldata(3n, '0x80')), container: 'in_anytrust' });
      posted.push({ ...(await poster.blob(2n, testBlobs(1))), container: 'in_blob4844' });
      // posted by a contract: its range comes from its neighbours
      posted.push({ ...(await poster.throughContract(1n, '0x88')), container: 'in_anytrust' });
      // zero-heavy (0x20) names no container of the table
      posted.push({ ...(await poster.calldata(1n, '0x20')), container: null });
      await followerCaughtUp(db, parent);
      served = await expectAllBlocks(api, parent, child, posted, confirmed);
      expect((served.get(5n) as { status: string }).status).toBe('Sent to base');
      expect((served.get(12n) as { status: string }).status).toBe('Processed on rollup');

      for (const childBlock of [5n, 9n]) {
        const hash = (await child.public.getBlock({ blockNumber: childBlock })).hash;
        confirmed.push({ childBlock, receipt: await confirmChildBlock(parent, contracts, hash, `0x${'ab'.repeat(31)}${childBlock.toString(16).padStart(2, '0')}` as Hex) });
      }
      await followerCaughtUp(db, parent);
      served = await expectAllBlocks(api, parent, child, posted, confirmed);
      expect((served.get(5n) as { status: string }).status).toBe('Confirmed on base');
      expect((served.get(10n) as { status: string }).status).toBe('Sent to base');
      // the last batch and the confirmations are younger than the parent's safe block, the first batch older
      expect((served.get(11n) as { commitment_transaction: { status: string } }).commitment_transaction.status).toBe('unfinalized');
      expect((served.get(9n) as { confirmation_transaction: { status: string } }).confirmation_transaction.status).toBe('unfinalized');
      expect((served.get(1n) as { commitment_transaction: { status: string } }).commitment_transaction.status).toBe('finalized');

      // the parent's safe block passes them all: every transaction final
      await parent.mine(6);
      await followerCaughtUp(db, parent);
      served = await expectAllBlocks(api, parent, child, posted, confirmed);
      expect((served.get(9n) as { confirmation_transaction: { status: string } }).confirmation_transaction.status).toBe('finalized');
    } finally {
      await running.stop();
      await api.close();
      await drop();
    }
  }, 240_000);
});
