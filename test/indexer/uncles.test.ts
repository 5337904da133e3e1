/**
 * Uncles are indexed and served as the reference serves them: the real indexer, over real
 * sockets, against the replay JSON-RPC server answering with Ethereum block 508,110 (Frontier,
 * one uncle) and its recorded trace_block. No proof-of-work node can run here.
 *
 * STAND-INS (test/support/block-508110.ts says exactly what): the uncle's header, which was not
 * recorded (its hash, height and miner follow from the recording, the rest is made up); the
 * block's full transactions and receipts (gas used derived from the recording, gas price made
 * up); and, for the reorg, the block that replaces 508,110 (an empty block with another hash).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../src/db/client.js';
import type { Hex } from '../../src/db/rows.js';
import { blockColumns, type BlockRow } from '../../src/db/model/block.js';
import { readRow, selectList } from '../../src/db/model/columns.js';
import { setChangesFrom } from '../../src/db/queries/progress.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { rollBackTo } from '../../src/indexer/reorg.js';
import { writeBatch } from '../../src/indexer/write-batch.js';
import type { IndexBatch } from '../../src/indexer/transform.js';
import { checksum } from '../../src/api/views/checksum.js';
import type { RpcBlock } from '../../src/rpc/types.js';
import { createRpcClient } from '../../src/rpc/client.js';
import { startTestApi, type TestApi } from '../support/api.js';
import {
  BLOCK_NUMBER,
  MINER,
  MINTED_BLOCK_REWARD,
  UNCLE_HASH,
  UNCLE_REWARD,
  recordedBlock,
  recordedTraces,
  standInFees,
  standInFullBlock,
  standInReceipts,
  standInUncle,
} from '../support/block-508110.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { CapturingLogger, startIndexer, waitFor, type RunningIndexer } from '../support/indexer-harness.js';
import { startReplayServer, type ReplayServer } from '../support/replay-rpc.js';
import { blockRow, hashOf } from '../support/seed.js';

const CHAIN = 1;
const UNCLE_NUMBER = BLOCK_NUMBER - 2n;

/** STAND-IN: an empty block that replaces 508,110 in a reorg (not real chain data). */
function standInReplacement(): RpcBlock {
  return { ...recordedBlock(), hash: hashOf(508_110, 'replacement'), transactions: [], uncles: [], gasUsed: '0x0' };
}

/** The replay server answering for 508,110, or for its replacement once `replaced` is set. */
async function startNode(): Promise<{ server: ReplayServer; replace(): void }> {
  let current = standInFullBlock();
  const isCurrent = (ref: unknown) =>
    ref === 'latest' || String(ref).toLowerCase() === current.hash || (String(ref).length < 66 && BigInt(String(ref)) === BLOCK_NUMBER);
  const served = (full: unknown) => (full === true ? current : { ...current, transactions: current.transactions.map((t) => (typeof t === 'string' ? t : t.hash)) });
  const server = await startReplayServer({
    sets: ['ethereum-etl-block-508110'],
    chainId: CHAIN,
    head: BLOCK_NUMBER,
    handlers: {
      eth_getBlockByNumber: ([ref, full]) => (isCurrent(ref) ? served(full) : null),
      eth_getBlockByHash: ([ref, full]) => (isCurrent(ref) ? served(full) : null),
      eth_getBlockReceipts: ([ref]) => (isCurrent(ref) ? (current.transactions.length === 0 ? [] : standInReceipts()) : null),
      eth_getUncleByBlockHashAndIndex: ([hash, index]) =>
        String(hash).toLowerCase() === current.hash && (current.uncles ?? [])[Number(index)] === UNCLE_HASH ? standInUncle() : null,
      trace_block: ([ref]) => (isCurrent(ref) && current.transactions.length > 0 ? recordedTraces() : []),
    },
  });
  return { server, replace: () => (current = standInReplacement()) };
}

describe.each(await availableEngines())('uncles on %s', (engine) => {
  let node: Awaited<ReturnType<typeof startNode>>;
  let api: TestApi;
  let indexer: RunningIndexer;
  const validated = () => api.get(`/${CHAIN}/api/v2/addresses/${MINER}/blocks-validated`);
  const mined = (blocktype: 'blocks' | 'uncles') => api.get(`/${CHAIN}/api`, { module: 'account', action: 'getminedblocks', address: MINER, blocktype });

  beforeAll(async () => {
    node = await startNode();
    api = await startTestApi(engine);
    indexer = await startIndexer(api.db, node.server.url, { chain: { chainId: CHAIN, startBlock: BLOCK_NUMBER }, indexer: { traces: true } });
    await indexer.caughtUp();
  });
  afterAll(async () => {
    await indexer?.stop();
    await api?.close();
    await node?.server.close();
  });

  it('asks for the uncle by the including block’s hash and index, once', () => {
    expect(node.server.callCount('eth_getUncleByBlockHashAndIndex')).toBe(1);
  });

  it('blocks-validated lists the uncle with type "uncle" beside the block that includes it', async () => {
    const { status, body } = await validated();
    expect(status).toBe(200);
    expect(body.items.map((b: { height: number; type: string; hash: string }) => [b.height, b.type, b.hash])).toEqual([
      [Number(BLOCK_NUMBER), 'block', recordedBlock().hash],
      [Number(UNCLE_NUMBER), 'uncle', UNCLE_HASH],
    ]);
    const [block, uncle] = body.items;
    expect(block.uncles_hashes).toEqual([{ hash: UNCLE_HASH }]);
    // the including block pays the uncle's miner (the trace's uncle entry) and its own miner
    // (minted + fees; the fees come from the stand-in gas price)
    expect(block.rewards).toEqual([
      { type: 'validator', reward: (MINTED_BLOCK_REWARD + standInFees()).toString(), address_hash: checksum(MINER) },
      { type: 'uncle', reward: UNCLE_REWARD.toString(), address_hash: checksum(MINER) },
    ]);
    // an uncle's own row: its header, none of its transactions, no reward of its own
    expect(uncle).toMatchObject({
      miner: { hash: checksum(MINER) },
      transactions_count: 0,
      transaction_fees: '0',
      burnt_fees: '0',
      priority_fee: '0',
      internal_transactions_count: null,
      rewards: [],
      uncles_hashes: [],
    });
  });

  it('getminedblocks: blocktype=uncles lists the uncle with the reward paid by the including block', async () => {
    const uncles = await mined('uncles');
    expect(uncles.body).toEqual({
      status: '1',
      message: 'OK',
      result: [{ blockNumber: UNCLE_NUMBER.toString(), timeStamp: BigInt(standInUncle().timestamp).toString(), blockReward: UNCLE_REWARD.toString() }],
    });
    const blocks = await mined('blocks');
    expect(blocks.body.result).toEqual([
      { blockNumber: BLOCK_NUMBER.toString(), timeStamp: BigInt(recordedBlock().timestamp).toString(), blockReward: (MINTED_BLOCK_REWARD + standInFees()).toString() },
    ]);
  });

  it('getblockreward: the recorded rewards split into the block, its uncle and the inclusion part', async () => {
    const res = await api.get(`/${CHAIN}/api`, { module: 'block', action: 'getblockreward', blockno: BLOCK_NUMBER.toString() });
    // the recorded trace: 5 ETH base + 5/32 for including one uncle, and 6/8 × 5 for the uncle (depth 2)
    const base = 5n * 10n ** 18n;
    expect(MINTED_BLOCK_REWARD).toBe(base + base / 32n);
    expect(res.body).toEqual({
      status: '1',
      message: 'OK',
      result: {
        blockNumber: BLOCK_NUMBER.toString(),
        timeStamp: BigInt(recordedBlock().timestamp).toString(),
        blockMiner: MINER,
        blockReward: (MINTED_BLOCK_REWARD + standInFees()).toString(),
        uncles: [{ miner: MINER, unclePosition: '0', blockreward: UNCLE_REWARD.toString() }],
        uncleInclusionReward: (base / 32n).toString(),
      },
    });
  });

  it('a reorg that orphans the including block takes the uncle with it', async () => {
    node.replace();
    await waitFor(
      async () => {
        const tip = await indexedHash(api.db);
        return tip === standInReplacement().hash ? true : undefined;
      },
      () => `the replacement of ${BLOCK_NUMBER} indexed\n${indexer.logger.tail()}`,
    );
    const { body } = await validated();
    expect(body.items.map((b: { height: number; type: string; hash: string }) => [b.height, b.type, b.hash])).toEqual(
      expect.arrayContaining([
        [Number(BLOCK_NUMBER), 'block', standInReplacement().hash],
        [Number(BLOCK_NUMBER), 'reorg', recordedBlock().hash],
      ]),
    );
    expect(body.items).toHaveLength(2);
    expect(await blockByHash(api.db, UNCLE_HASH)).toBeUndefined();
    expect((await mined('uncles')).body).toEqual({ status: '0', message: 'No transactions found', result: [] });
  });
});

describe.each(await availableEngines())('an uncle that was a block of ours, on %s', (engine) => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase(engine));
    await ensureChain(db, CHAIN);
  });
  afterAll(() => drop?.());

  it('keeps its data when included as an uncle, and is an orphan again when the including block is orphaned', async () => {
    const miner = '0x00000000000000000000000000000000000000aa' as Hex;
    // 10 and 11 were ours; a reorg at 11 orphaned 11 (ours, with 10 transactions)
    const parent = blockRow(CHAIN, 10, miner);
    const orphan = blockRow(CHAIN, 11, miner, { hash: hashOf(11, 'orphan'), consensus: false });
    await upsertBlocks(db, [parent, orphan]);
    // the winning 11 and then 12, which includes our orphan as its uncle
    const winner = blockRow(CHAIN, 11, miner, { hash: hashOf(11, 'winner'), parentHash: parent.hash });
    const nephew = blockRow(CHAIN, 12, miner, { parentHash: winner.hash, uncleHashes: [orphan.hash] });
    const uncleRow: BlockRow = { ...orphan, transactionsCount: 0, rewards: [], isUncle: true, headerOnly: true };
    await writeBatch(db, CHAIN, batchOf([winner, nephew], [uncleRow]));
    const asUncle = await blockByHash(db, orphan.hash);
    expect(asUncle).toMatchObject({ consensus: false, isUncle: true, headerOnly: false, transactionsCount: 10, rewards: orphan.rewards });

    await setChangesFrom(db, CHAIN, 11n);
    const rpc = createRpcClient({ chainId: CHAIN, urls: ['http://127.0.0.1:9/'] }); // not called: the rollback is exact
    await rollBackTo(db, rpc, CHAIN, 11n, 12n, new CapturingLogger());
    expect(await blockByHash(db, orphan.hash)).toMatchObject({ consensus: false, isUncle: false, headerOnly: false, transactionsCount: 10 });
    expect(await blockByHash(db, nephew.hash)).toMatchObject({ consensus: false });
  });
});

function batchOf(blocks: BlockRow[], uncles: BlockRow[]): IndexBatch {
  const numbers = blocks.map((b) => b.number);
  return {
    from: numbers[0]!,
    to: numbers[numbers.length - 1]!,
    blocks,
    uncles,
    transfers: 0,
    deltas: [],
    recordedFrom: null,
    blockDeltas: [],
    history: [],
    tokens: new Map(),
    tokenFirstBlock: new Map(),
    tokenTransfers: new Map(),
    blockTransfers: [],
    addresses: new Set(),
  };
}

async function blockByHash(db: Database, hash: Hex): Promise<BlockRow | undefined> {
  const rows = await db.query<Record<string, unknown>>(`SELECT ${selectList(blockColumns, 'b')} FROM blocks b WHERE b.chain_id = $1 AND b.hash = $2`, [
    CHAIN,
    Buffer.from(hash.slice(2), 'hex'),
  ]);
  return rows[0] ? readRow(blockColumns, rows[0]) : undefined;
}

async function indexedHash(db: Database): Promise<Hex | undefined> {
  const rows = await db.query<{ hash: string }>(
    `SELECT '0x' || encode(b.hash, 'hex') AS hash FROM chains c JOIN blocks b ON b.chain_id = c.chain_id AND b.number = c.indexed_block AND b.consensus
     WHERE c.chain_id = $1`,
    [CHAIN],
  );
  return rows[0]?.hash as Hex | undefined;
}
