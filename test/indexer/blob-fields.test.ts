/**
 * The EIP-4844 block fields against a real node: anvil mines real type-3 transactions (real KZG
 * sidecars) from a genesis excess blob gas high enough that the fork's update fraction decides
 * the price. Ground truth per block, all from the node: its header (blobGasUsed, excessBlobGas),
 * its transactions (type 3), eth_blobBaseFee read just before the block was mined, the
 * BLOBBASEFEE opcode executed at the block, and what the EVM charged the sender for blob gas.
 *
 * anvil 1.7 charges Cancun's fraction under `--hardfork cancun` and Prague's under `prague` (and,
 * as it implements them, under osaka/bpo*: it has no BPO parameters), but writes Cancun's price
 * into every receipt's blobGasPrice: receipts are not ground truth here, the EVM is.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Hash, TransactionReceipt } from 'viem';
import type { BlobSchedule } from '../../src/config/blob-schedule.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { indexToHead } from '../support/indexer-harness.js';
import { startTestApi } from '../support/api.js';
import { blobSender, genesisWithExcessBlobGas, sendBlobTransaction, testBlobs } from '../support/blobs.js';
import { addressOf } from '../support/seed.js';
import { BlobFieldsBackfill } from '../../src/indexer/blob-backfill.js';
import { createRpcClient } from '../../src/rpc/client.js';
import type { TestApi } from '../support/api.js';

const CHAIN_ID = 31337;
// e^(excess/fraction) is then ~5e8 wei with Cancun's fraction and ~7e5 with Prague's
const GENESIS_EXCESS = 67_108_864n;
const MINER = addressOf(1, 'blob-miner');
/** BLOBBASEFEE; PUSH0; MSTORE; PUSH1 32; PUSH0; RETURN — run as init code by eth_call */
const BLOBBASEFEE_CODE = '0x4a5f5260205ff3';

interface NodeTruth {
  number: bigint;
  blobGasUsed: bigint;
  excessBlobGas: bigint;
  blobTransactions: number;
  /** eth_blobBaseFee just before the block was mined (the pending block's price) */
  pendingBlobBaseFee: bigint;
  /** BLOBBASEFEE executed at the block */
  opcode: bigint;
  /** what the EVM took from the sender per blob gas, when the block has a blob transaction */
  charged: bigint | null;
}

const cases: Array<{ hardfork: string; schedule: BlobSchedule | null; why: string }> = [
  { hardfork: 'cancun', schedule: null, why: 'no blobSchedule configured: EIP-4844\'s parameters' },
  { hardfork: 'prague', schedule: [{ timestamp: 0, name: 'prague', baseFeeUpdateFraction: 5_007_716 }], why: 'the configured schedule' },
];

const engines = await availableEngines();

describe.each(cases)('anvil $hardfork, $why', ({ hardfork, schedule }) => {
  let node: TestNode;
  const truths: NodeTruth[] = [];

  async function mineBlock(send: () => Promise<Hash | null>): Promise<void> {
    const pendingBlobBaseFee = await node.public.getBlobBaseFee();
    const hash = await send();
    await node.mine(1);
    const block = await node.public.getBlock({ includeTransactions: true });
    let charged: bigint | null = null;
    if (hash !== null) {
      const receipt: TransactionReceipt = await node.public.getTransactionReceipt({ hash });
      const before = await node.public.getBalance({ address: blobSender.address, blockNumber: block.number - 1n });
      const after = await node.public.getBalance({ address: blobSender.address, blockNumber: block.number });
      charged = (before - after - receipt.gasUsed * receipt.effectiveGasPrice) / block.blobGasUsed!;
    }
    const { data } = await node.public.call({ data: BLOBBASEFEE_CODE, blockNumber: block.number });
    truths.push({
      number: block.number,
      blobGasUsed: block.blobGasUsed!,
      excessBlobGas: block.excessBlobGas!,
      blobTransactions: block.transactions.filter((tx) => tx.type === 'eip4844').length,
      pendingBlobBaseFee,
      opcode: BigInt(data!),
      charged,
    });
  }

  /** The single-block answer for every block of `truths` equals the node's. */
  async function expectNodeBlobFields(api: TestApi): Promise<void> {
    for (const t of truths) {
      const { status, body } = await api.get(`/${CHAIN_ID}/api/v2/blocks/${t.number}`);
      expect(status).toBe(200);
      expect(body, `block ${t.number}`).toMatchObject({
        blob_gas_used: t.blobGasUsed.toString(),
        excess_blob_gas: t.excessBlobGas.toString(),
        blob_transactions_count: t.blobTransactions,
        blob_transaction_count: t.blobTransactions,
        blob_gas_price: t.opcode.toString(),
        burnt_blob_fees: (t.blobGasUsed * t.opcode).toString(),
      });
    }
  }

  beforeAll(async () => {
    node = await startTestNode({ hardfork, noMining: true, args: ['--init', genesisWithExcessBlobGas(CHAIN_ID, GENESIS_EXCESS)] });
    await node.setCoinbase(MINER);
    // anvil prices block 1 with its own default fork whatever --hardfork says: start after it
    await node.mine(1);
    const blobs = testBlobs(5);
    for (const count of [3, 5, 4]) await mineBlock(() => sendBlobTransaction(node.chain, node.url, blobs.slice(0, count)));
    // a block without blob transactions still has a blob base fee; burnt blob fees are 0
    await mineBlock(async () => {
      await node.sendTransaction({ from: blobSender.address, to: MINER, value: '0x1' });
      return null;
    });
  }, 180_000);
  afterAll(() => node?.stop());

  it('the node agrees with itself: pending fee, opcode and charge are one price per block', () => {
    expect(truths.filter((t) => t.blobTransactions > 0)).toHaveLength(3);
    for (const t of truths) {
      expect(t.opcode, `block ${t.number}`).toBe(t.pendingBlobBaseFee);
      if (t.charged !== null) expect(t.charged, `block ${t.number}`).toBe(t.opcode);
      expect(t.opcode).toBeGreaterThan(1n); // the fraction matters at this excess
    }
  });

  it.each(engines)('indexed into %s and served: every blob field equals the node\'s', async (engine) => {
    const { db, drop } = await freshDatabase(engine);
    const api = await startTestApi(engine, { db });
    try {
      await indexToHead(db, node.url, { chain: { blobSchedule: schedule } });
      await expectNodeBlobFields(api);
      const list = await api.get(`/${CHAIN_ID}/api/v2/addresses/${MINER}/blocks-validated`);
      const byHeight = new Map(list.body.items.map((b: any) => [BigInt(b.height), b]));
      for (const t of truths) {
        const item = byHeight.get(t.number) as Record<string, unknown>;
        expect(item).toMatchObject({ blob_gas_used: t.blobGasUsed.toString(), blob_transactions_count: t.blobTransactions });
        // single-block fields only, as the reference
        expect(item).not.toHaveProperty('blob_gas_price');
      }
    } finally {
      await api.close();
      await drop();
    }
  }, 120_000);

  it.each(engines)('on %s, blocks stored before migration 010 get their blob fields from the node', async (engine) => {
    const { db, drop } = await freshDatabase(engine);
    const api = await startTestApi(engine, { db });
    try {
      await indexToHead(db, node.url, { chain: { blobSchedule: schedule } });
      // what an index written by the previous version holds after migration 010
      await db.query('UPDATE blocks SET blob_gas_used = NULL, excess_blob_gas = NULL, blob_transactions_count = NULL');
      const stale = await api.get(`/${CHAIN_ID}/api/v2/blocks/${truths[0]!.number}`);
      expect(stale.body).toMatchObject({ blob_gas_used: null, blob_transactions_count: null, blob_gas_price: null });
      const backfill = new BlobFieldsBackfill(db, createRpcClient({ chainId: CHAIN_ID, urls: [node.url] }), CHAIN_ID);
      let rounds = 0;
      while ((await backfill.step()) > 0) rounds += 1;
      expect(rounds).toBeGreaterThan(0);
      const [left] = await db.query<{ n: string }>('SELECT count(*)::text AS n FROM blocks WHERE blob_transactions_count IS NULL');
      expect(left!.n).toBe('0');
      await expectNodeBlobFields(api);
    } finally {
      await api.close();
      await drop();
    }
  }, 120_000);
});
