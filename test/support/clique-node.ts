/**
 * A real Clique proof-of-authority node: the EthereumJS client (npm `@ethereumjs/client`, a full
 * execution client) sealing a private chain with one signer, as geth's Clique PoA chains do
 * (and, as geth, paying each block's tips to its signer).
 * Its blocks name the zero address as `miner` and carry the signer's seal in `extraData`. anvil
 * cannot seal so; the signer's key is made here, so who signed is known without our code.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts';
import type { Hex } from 'viem';
import { freePort } from './api-process.js';
import { jsonRpcRequester } from '../../src/devnet/client.js';

export interface CliqueNode {
  url: string;
  chainId: number;
  /** the one sealer's key and address */
  key: Hex;
  signer: Hex;
  /** a prefunded account that is not the sealer's, to send transactions from */
  sender: { key: Hex; address: Hex };
  request<T>(method: string, params?: unknown[]): Promise<T>;
  /** resolves once the node's head is at least `number` */
  reach(number: bigint, timeoutMs?: number): Promise<void>;
  /** the node's last output, for a failure's message */
  output(): string;
  stop(): Promise<void>;
}

const require = createRequire(import.meta.url);
// 0.10.2: 0.10.5 seals empty blocks only (its block builder refuses every transaction on Clique)
const CLIENT_MAIN = join(dirname(require.resolve('@ethereumjs/client/package.json')), 'dist', 'esm', 'bin', 'cli.js');

/** A geth genesis sealed by Clique every `period` seconds, London from block 0, `signer` the only sealer. */
function genesis(chainId: number, signer: Hex, funded: Hex, period: number) {
  const zeroHash = `0x${'00'.repeat(32)}`;
  return {
    config: {
      chainId, homesteadBlock: 0, eip150Block: 0, eip155Block: 0, eip158Block: 0, byzantiumBlock: 0, constantinopleBlock: 0,
      petersburgBlock: 0, istanbulBlock: 0, berlinBlock: 0, londonBlock: 0, clique: { period, epoch: 30_000 },
    },
    nonce: '0x0', timestamp: '0x614b3731', gasLimit: '0x1c9c380', difficulty: '0x1', mixHash: zeroHash, number: '0x0', gasUsed: '0x0',
    coinbase: `0x${'00'.repeat(20)}`, parentHash: zeroHash, baseFeePerGas: '0x3b9aca00',
    // vanity, the sealers, an empty seal (EIP-225)
    extraData: `0x${'00'.repeat(32)}${signer.slice(2)}${'00'.repeat(65)}`,
    alloc: { [funded.slice(2)]: { balance: '0x100000000000000000000' } },
  };
}

export async function startCliqueNode(options: { chainId?: number; periodSeconds?: number } = {}): Promise<CliqueNode> {
  const chainId = options.chainId ?? 1_337_225;
  const key = generatePrivateKey();
  const signer = privateKeyToAddress(key).toLowerCase() as Hex;
  const senderKey = generatePrivateKey();
  const sender = { key: senderKey, address: privateKeyToAddress(senderKey).toLowerCase() as Hex };
  const dir = await mkdtemp(join(tmpdir(), 'clique-node-'));
  await writeFile(join(dir, 'genesis.json'), JSON.stringify(genesis(chainId, signer, sender.address, options.periodSeconds ?? 1)));
  await writeFile(join(dir, 'key'), key.slice(2));
  const port = await freePort();
  const child = spawn(
    process.execPath,
    [
      CLIENT_MAIN, '--gethGenesis', join(dir, 'genesis.json'), '--mine', '--unlock', join(dir, 'key'), '--dataDir', join(dir, 'data'),
      '--rpc', '--rpcAddr', '127.0.0.1', '--rpcPort', String(port), '--port', '0', '--discV4=false', '--discDns=false', '--minPeers', '0', '--maxPeers', '0', ...(process.env.CLIQUE_NODE_DEBUG ? ['--logLevel', 'debug'] : []),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4_000)));
  child.stderr.on('data', (d: Buffer) => (output = (output + d.toString()).slice(-4_000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  const request = jsonRpcRequester(url);
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const killer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(killer);
    }
    await rm(dir, { recursive: true, force: true });
  };
  const reach = async (number: bigint, timeoutMs = 60_000) => {
    const until = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the Clique node exited (${child.exitCode}):\n${output}`);
      const head = await request<string>('eth_blockNumber').then(BigInt, () => -1n);
      if (head >= number) return;
      if (Date.now() > until) throw new Error(`the Clique node did not reach block ${number} in ${timeoutMs} ms (head ${head}):\n${output}`);
      await sleep(200);
    }
  };
  try {
    await reach(1n);
  } catch (error) {
    await stop();
    throw error;
  }
  return { url, chainId, key, signer, sender, request, reach, output: () => output, stop };
}
