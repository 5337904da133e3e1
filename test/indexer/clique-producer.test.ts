/**
 * A Clique proof-of-authority chain (geth Clique, Polygon PoS): its blocks name the zero address
 * as `miner` and carry the signer's seal in `extraData`. Against a real Clique node (EthereumJS,
 * test/support/clique-node.ts) whose one sealer's key the test made, so the signer is known
 * without our code:
 * - with `blockProducer: clique` every block from 1 up is validated by the signer, with the tips
 *   the node paid it (its balance before and after), and the zero address keeps only genesis;
 * - the start refuses `clique` against a chain that does not seal (anvil), warns when `miner` is
 *   kept on a sealed chain, and says at every start that a changed value applies to new blocks,
 *   also once it is changed back.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWalletClient, http, parseGwei } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { startCliqueNode, type CliqueNode } from '../support/clique-node.js';
import { startTestNode } from '../support/anvil.js';
import { devnetChain } from '../../src/devnet/client.js';
import { freshDatabase } from '../support/databases.js';
import { startIndexer } from '../support/indexer-harness.js';
import { startTestApi } from '../support/api.js';
import { killHard, spawnIndexer } from '../support/indexer-process.js';
import { runCli } from '../support/cli.js';
import type { RpcBlock, RpcReceipt } from '../../src/rpc/types.js';
import { headerMatchesHash } from '../../src/evm/header-rlp.js';

const ZERO = '0x0000000000000000000000000000000000000000';

describe('a Clique chain: blocks validated by the seal\'s signer', () => {
  let node: CliqueNode;
  let tipped: { block: bigint; tips: bigint };
  beforeAll(async () => {
    node = await startCliqueNode();
    const chain = devnetChain(node.chainId, node.url);
    const wallet = createWalletClient({ account: privateKeyToAccount(node.sender.key), chain, transport: http(node.url) });
    // a legacy transaction: for an EIP-1559 one this EthereumJS version's receipt gives the tip as
    // its effectiveGasPrice (2 gwei where the sender paid the base fee beside it), which no fee
    // formula over receipts can get right; a legacy one's is its gas price on every client
    const hash = await wallet.sendTransaction({ type: 'legacy', to: '0x00000000000000000000000000000000000c0ffe', value: 1_000n, gas: 21_000n, gasPrice: parseGwei('3') });
    let receipt: RpcReceipt | null = null;
    for (let i = 0; i < 100 && receipt === null; i++) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      // (this client answers an error, not null, for a transaction not yet mined)
      receipt = await node.request<RpcReceipt | null>('eth_getTransactionReceipt', [hash]).catch(() => null);
    }
    if (receipt === null) throw new Error(`the transaction was not mined:\n${node.output()}`);
    const block = BigInt(receipt.blockNumber);
    const balance = async (at: bigint) => BigInt(await node.request<string>('eth_getBalance', [node.signer, `0x${at.toString(16)}`]));
    tipped = { block, tips: (await balance(block)) - (await balance(block - 1n)) };
    await node.reach(block + 2n);
  }, 120_000);
  afterAll(async () => {
    await node?.stop();
  });

  it('blockProducer clique: every block from 1 up is the signer\'s, rewarded with the tips the node paid it; 0x0 keeps genesis only', async () => {
    expect(tipped.tips).toBeGreaterThan(0n);
    const { db, drop } = await freshDatabase('pglite');
    try {
      const run = await startIndexer(db, node.url, { chain: { chainId: node.chainId, blockProducer: 'clique' } });
      const head = await run.caughtUp();
      await run.stop();
      const api = await startTestApi('pglite', { db });
      try {
        const validated = async (address: string) => {
          const res = await api.get(`/${node.chainId}/api/v2/addresses/${address}/blocks-validated`);
          expect(res.status).toBe(200);
          return res.body as { items: Array<{ height: number; hash: string; miner: { hash: string }; rewards: Array<{ reward: string; address_hash: string }> }> };
        };
        const bySigner = await validated(node.signer);
        const expected: Array<{ height: number; hash: string }> = [];
        for (let n = head; n >= 1n; n--) {
          const block = await node.request<RpcBlock>('eth_getBlockByNumber', [`0x${n.toString(16)}`, false]);
          expect(block.miner).toBe(ZERO);
          expected.push({ height: Number(n), hash: block.hash });
        }
        expect(bySigner.items.map((b) => ({ height: b.height, hash: b.hash }))).toEqual(expected);
        expect(new Set(bySigner.items.map((b) => b.miner.hash.toLowerCase()))).toEqual(new Set([node.signer]));
        const withTx = bySigner.items.find((b) => BigInt(b.height) === tipped.block)!;
        expect(withTx.rewards.map((r) => [r.reward, r.address_hash.toLowerCase()])).toEqual([[tipped.tips.toString(), node.signer]]);
        expect((await validated(ZERO)).items.map((b) => b.height)).toEqual([0]);
      } finally {
        await api.close();
      }
    } finally {
      await drop();
    }
  }, 120_000);

  it('the start: clique on a chain that does not seal is refused; miner on one that does is warned; a change after indexing is said', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'clique-start-'));
    const anvil = await startTestNode();
    try {
      await anvil.mine(2);
      // (the header encoding the seal is checked with, on a Prague header: requestsHash its last field)
      const latest = await anvil.request<RpcBlock>('eth_getBlockByNumber', ['latest', false]);
      expect(latest['requestsHash']).toMatch(/^0x[0-9a-f]{64}$/);
      expect(headerMatchesHash(latest)).toBe(true);
      const refused = spawnIndexer({ chainId: anvil.anvil.chainId, rpcUrl: anvil.url, dataDir: join(dir, 'anvil'), env: { EXPLORER_BLOCK_PRODUCER: 'clique' } });
      expect((await refused.exited).code).toBe(1);
      expect(refused.output()).toMatch(/chain \d+: blockProducer is clique, but the node's block \d+ has no Clique seal: its extraData is 0 bytes, under 97; a chain that is not Clique needs blockProducer miner/);

      const data = join(dir, 'clique');
      const kept = spawnIndexer({ chainId: node.chainId, rpcUrl: node.url, dataDir: data, env: { LOG_LEVEL: 'debug' } });
      try {
        const warned = await kept.waitForLog((l) => String(l.msg).includes('carry a Clique seal'), 30_000);
        expect(warned.signer).toBe(node.signer);
        await kept.waitForLog((l) => l.msg === 'batch committed', 30_000);
      } finally {
        await killHard(kept);
      }
      const changed = spawnIndexer({ chainId: node.chainId, rpcUrl: node.url, dataDir: data, env: { EXPLORER_BLOCK_PRODUCER: 'clique' } });
      try {
        const said = await changed.waitForLog((l) => String(l.msg).startsWith("this chain's blocks were indexed with blockProducer miner; clique applies to the blocks indexed from now on"), 30_000);
        expect(said).toMatchObject({ indexedWith: 'miner', blockProducer: 'clique' });
        expect(changed.logs.some((l) => String(l.msg).includes('carry a Clique seal'))).toBe(false);
        await changed.waitForLog((l) => l.msg === 'resuming', 30_000);
      } finally {
        await killHard(changed);
      }
      // back to miner: the blocks indexed meanwhile stay the signer's, so it is still said (review: it went silent)
      const back = spawnIndexer({ chainId: node.chainId, rpcUrl: node.url, dataDir: data });
      try {
        const said = await back.waitForLog((l) => String(l.msg).startsWith("this chain's blocks were indexed with more than one blockProducer; miner applies"), 30_000);
        expect(said).toMatchObject({ indexedWith: 'mixed', blockProducer: 'miner' });
      } finally {
        await killHard(back);
      }
      const listed = await runCli(['chains', 'list'], { env: { EXPLORER_DATA_DIR: data } });
      expect(listed.stdout).toMatch(new RegExp(`^${node.chainId}\\tindexed \\d+\\thead \\d+\\t\\S+\\tblockProducer mixed$`, 'm'));
    } finally {
      await anvil.stop();
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
