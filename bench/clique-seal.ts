/**
 * What `blockProducer: clique` costs the transform per block: the Clique seal's signer recovered
 * (the header encoded and hashed twice, then secp256k1 public-key recovery in JavaScript) against
 * the header's `miner` read as it is, on real sealed blocks of a Clique node (EthereumJS, as in
 * test/indexer/clique-producer.test.ts), and beside the whole digest of such a block.
 *
 *   npx tsx bench/clique-seal.ts [--blocks 5] [--rounds 3000] [--out bench/results/clique-seal.json]
 */
import { writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { startCliqueNode } from '../test/support/clique-node.js';
import { blockProducerOf, type BlockProducer } from '../src/evm/block-producer.js';
import { digestBlock } from '../src/indexer/transform.js';
import type { RpcBlock, RpcReceipt } from '../src/rpc/types.js';
import { round } from './lib/stats.js';

const { values } = parseArgs({
  options: { blocks: { type: 'string', default: '5' }, rounds: { type: 'string', default: '3000' }, out: { type: 'string' } },
});
const BLOCKS = Number(values.blocks);
const ROUNDS = Number(values.rounds);

const node = await startCliqueNode();
const fetched: Array<{ block: RpcBlock; receipts: RpcReceipt[] }> = [];
try {
  await node.reach(BigInt(BLOCKS));
  for (let n = 1; n <= BLOCKS; n++) {
    const tag = `0x${n.toString(16)}`;
    const block = await node.request<RpcBlock>('eth_getBlockByNumber', [tag, true]);
    // (this client has no eth_getBlockReceipts)
    const hashes = block.transactions.map((tx) => (typeof tx === 'string' ? tx : tx.hash));
    fetched.push({ block, receipts: await Promise.all(hashes.map((hash) => node.request<RpcReceipt>('eth_getTransactionReceipt', [hash]))) });
  }
} finally {
  await node.stop();
}

/** µs per call, over every block in turn, after a warm-up */
function perBlockUs(run: (i: number) => void): number {
  for (let i = 0; i < 200; i++) run(i % BLOCKS);
  const started = performance.now();
  for (let i = 0; i < ROUNDS; i++) run(i % BLOCKS);
  return round(((performance.now() - started) / ROUNDS) * 1000, 1);
}

const digest = (producer: BlockProducer) => (i: number) =>
  digestBlock({ ...fetched[i]!, traces: null, uncles: [] }, { chainId: node.chainId, wrappedNativeTokens: new Set(), blockProducer: producer });
const result = {
  at: new Date().toISOString(),
  cpu: cpus()[0]?.model,
  load1: round(loadavg()[0]!, 2),
  blocks: BLOCKS,
  rounds: ROUNDS,
  producer_us: {
    miner: perBlockUs((i) => blockProducerOf(fetched[i]!.block, 'miner')),
    clique: perBlockUs((i) => blockProducerOf(fetched[i]!.block, 'clique')),
  },
  digest_us: { miner: perBlockUs(digest('miner')), clique: perBlockUs(digest('clique')) },
};
console.log(JSON.stringify(result, null, 2));
if (values.out) await writeFile(values.out, `${JSON.stringify(result, null, 2)}\n`);
