/**
 * A real Nitro settlement layer on a parent anvil: the Bridge, SequencerInbox (with the Reader4844
 * it reads blob hashes with) and Outbox of the `@arbitrum/nitro-contracts` npm package, from the
 * compiled artifacts it ships, each behind the package's TransparentUpgradeableProxy as deployed
 * on real chains (their initializers refuse to run on the logic contract). The rollup is a
 * stand-in (StandIns.sol says why); a batch poster posts real batches through the real functions.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  concatHex, createWalletClient, encodeFunctionData, http, keccak256, numberToHex, parseGwei, toHex, zeroAddress,
  type Abi, type Address, type Hex, type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { TestNode } from '../anvil.js';
import { testKzg } from '../blobs.js';
import { compileSolidityFile, type Artifact } from '../solidity.js';

const require = createRequire(import.meta.url);
const NITRO = dirname(require.resolve('@arbitrum/nitro-contracts/package.json'));

/** An artifact the npm package ships: its runtime code is not needed. */
type NitroArtifact = Omit<Artifact, 'deployedBytecode'>;

function nitroArtifact(path: string): NitroArtifact {
  const json = JSON.parse(readFileSync(join(NITRO, path), 'utf8')) as { abi: Abi; bytecode: Hex | { object: string } };
  const bytecode = typeof json.bytecode === 'string' ? json.bytecode : (`0x${json.bytecode.object.replace(/^0x/, '')}` as Hex);
  return { abi: json.abi, bytecode };
}

export const nitro = {
  bridge: () => nitroArtifact('build/contracts/src/bridge/Bridge.sol/Bridge.json'),
  sequencerInbox: () => nitroArtifact('build/contracts/src/bridge/SequencerInbox.sol/SequencerInbox.json'),
  outbox: () => nitroArtifact('build/contracts/src/bridge/Outbox.sol/Outbox.json'),
  reader4844: () => nitroArtifact('out/yul/Reader4844.yul/Reader4844.json'),
  proxy: () => nitroArtifact('build/contracts/@openzeppelin/contracts/proxy/transparent/TransparentUpgradeableProxy.sol/TransparentUpgradeableProxy.json'),
};

type StandIn = 'StandInRollup' | 'ContractBatchPoster' | 'StandInNodeInterface';

/** StandIns.sol compiled with solc-js (once per process). */
export function standInArtifacts(): Record<StandIn, Artifact> {
  return compileSolidityFile(join(dirname(fileURLToPath(import.meta.url)), 'StandIns.sol')) as Record<StandIn, Artifact>;
}

/** anvil's default keys: #0 deploys and owns the rollup (the blob sender too), #1 posts batches, #9 administers the proxies. */
const POSTER_KEY = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d' as Hex;
const PROXY_ADMIN = '0xa0Ee7A142d267C1f36714E4a8F75612F20a79720' as Address;

export interface ParentRollup {
  rollup: Address;
  bridge: Address;
  sequencerInbox: Address;
  outbox: Address;
  contractPoster: Address;
  poster: Address;
  /** the keyset hash AnyTrust batches name (set valid on the SequencerInbox) */
  keysetHash: Hex;
}

async function proxied(node: TestNode, logic: NitroArtifact, init: Hex): Promise<Address> {
  const { address: impl } = await node.deploy(logic as never, [] as never);
  const { address } = await node.deploy(nitro.proxy() as never, [impl, PROXY_ADMIN, init] as never);
  return address;
}

export async function deployParentRollup(node: TestNode): Promise<ParentRollup> {
  const { StandInRollup, ContractBatchPoster } = standInArtifacts();
  const { address: rollup } = await node.deploy(StandInRollup as never, [] as never);
  const bridgeArt = nitro.bridge();
  const bridge = await proxied(node, bridgeArt, encodeFunctionData({ abi: bridgeArt.abi, functionName: 'initialize', args: [rollup] }));
  const { address: reader4844 } = await node.deploy(nitro.reader4844() as never, [] as never);
  const inboxArt = nitro.sequencerInbox();
  const { address: inboxImpl } = await node.deploy(inboxArt as never, [117_964n, reader4844, false, false] as never);
  const inboxInit = encodeFunctionData({
    abi: inboxArt.abi,
    functionName: 'initialize',
    args: [
      bridge,
      { delayBlocks: 5_760n, futureBlocks: 64n, delaySeconds: 86_400n, futureSeconds: 3_600n },
      { threshold: 0n, max: 0n, replenishRateInBasis: 0n },
      zeroAddress,
    ],
  });
  const { address: sequencerInbox } = await node.deploy(nitro.proxy() as never, [inboxImpl, PROXY_ADMIN, inboxInit] as never);
  const outboxArt = nitro.outbox();
  const outbox = await proxied(node, outboxArt, encodeFunctionData({ abi: outboxArt.abi, functionName: 'initialize', args: [bridge] }));
  const rollupAbi = StandInRollup.abi;
  await node.write({ address: rollup, abi: rollupAbi, functionName: 'setContracts' as never, args: [bridge, sequencerInbox, outbox] as never });
  const viaRollup = (data: Hex) => node.write({ address: rollup, abi: rollupAbi, functionName: 'execute' as never, args: [bridge, data] as never });
  await viaRollup(encodeFunctionData({ abi: bridgeArt.abi, functionName: 'setSequencerInbox', args: [sequencerInbox] }));
  await viaRollup(encodeFunctionData({ abi: bridgeArt.abi, functionName: 'setOutbox', args: [outbox, true] }));
  const { address: contractPoster } = await node.deploy(ContractBatchPoster as never, [] as never);
  const poster = privateKeyToAccount(POSTER_KEY).address;
  // setIsBatchPoster and setValidKeyset are for the rollup's owner (account #0)
  for (const who of [poster, contractPoster]) {
    await node.write({ address: sequencerInbox, abi: inboxArt.abi, functionName: 'setIsBatchPoster' as never, args: [who, true] as never });
  }
  const keyset = toHex('a test AnyTrust keyset');
  await node.write({ address: sequencerInbox, abi: inboxArt.abi, functionName: 'setValidKeyset' as never, args: [keyset] as never });
  // SequencerInbox.setValidKeyset: keccak256(0xfe ‖ keccak256(keyset)) with the top bit flipped
  const keysetHash = numberToHex(BigInt(keccak256(concatHex(['0xfe', keccak256(keyset)]))) ^ (1n << 255n), { size: 32 });
  return { rollup, bridge, sequencerInbox, outbox, contractPoster, poster, keysetHash };
}

/** Posts batches as Nitro's batch poster does, through the SequencerInbox's real functions. */
export class BatchPoster {
  private sequence = 0n;
  private messages = 0n;

  constructor(
    private readonly node: TestNode,
    private readonly contracts: ParentRollup,
  ) {}

  get nextBatch(): bigint {
    return this.sequence;
  }

  private wallet() {
    return createWalletClient({ account: privateKeyToAccount(POSTER_KEY), chain: this.node.chain, transport: http(this.node.url, { timeout: 60_000 }) });
  }

  private async mined(hash: Hex): Promise<TransactionReceipt> {
    if (!(await this.node.getAutomine())) await this.node.mine(1);
    const receipt = await this.node.waitReceipt(hash);
    if (receipt.status !== 'success') throw new Error(`batch transaction ${hash} reverted`);
    return receipt;
  }

  /** `count` messages in calldata whose first byte is `header` (0x00 brotli, 0x80/0x88 AnyTrust, 0x20 zero-heavy). */
  async calldata(count: bigint, header: Hex): Promise<{ receipt: TransactionReceipt; batch: bigint; prev: bigint; next: bigint }> {
    const data = header === '0x80' || header === '0x88' ? concatHex([header, this.contracts.keysetHash, '0x01020304']) : concatHex([header, toHex('batch payload')]);
    const { batch, prev, next } = this.take(count);
    const hash = await this.wallet().writeContract({
      address: this.contracts.sequencerInbox,
      abi: nitro.sequencerInbox().abi,
      functionName: 'addSequencerL2BatchFromOrigin',
      args: [batch, data, 0n, zeroAddress, prev, next],
    });
    return { receipt: await this.mined(hash), batch, prev, next };
  }

  /** `count` messages in a blob (a type-3 transaction to addSequencerL2BatchFromBlobs). */
  async blob(count: bigint, blobs: readonly Hex[]): Promise<{ receipt: TransactionReceipt; batch: bigint; prev: bigint; next: bigint }> {
    const { batch, prev, next } = this.take(count);
    const hash = await this.wallet().sendTransaction({
      to: this.contracts.sequencerInbox,
      data: encodeFunctionData({ abi: nitro.sequencerInbox().abi, functionName: 'addSequencerL2BatchFromBlobs', args: [batch, 0n, zeroAddress, prev, next] }),
      blobs: [...blobs],
      kzg: testKzg(),
      maxFeePerBlobGas: parseGwei('1000'),
    });
    return { receipt: await this.mined(hash), batch, prev, next };
  }

  /** `count` messages posted by a contract: the counts are not in the transaction's input. */
  async throughContract(count: bigint, header: Hex): Promise<{ receipt: TransactionReceipt; batch: bigint; prev: bigint; next: bigint }> {
    const data = concatHex([header, this.contracts.keysetHash, '0x0506']);
    const { batch, prev, next } = this.take(count);
    const { ContractBatchPoster } = standInArtifacts();
    const hash = await this.wallet().writeContract({
      address: this.contracts.contractPoster,
      abi: ContractBatchPoster.abi,
      functionName: 'post',
      args: [this.contracts.sequencerInbox, batch, data, prev, next],
    });
    return { receipt: await this.mined(hash), batch, prev, next };
  }

  private take(count: bigint) {
    const batch = this.sequence;
    const prev = this.messages;
    this.sequence += 1n;
    this.messages += count;
    return { batch, prev, next: this.messages };
  }

  /** After the parent chain dropped batches: the poster's view moves back with it. */
  rewind(batch: bigint, messages: bigint): void {
    this.sequence = batch;
    this.messages = messages;
  }
}

/** The rollup confirms the child's block `blockHash` (RollupCore's updateSendRoot call). */
export async function confirmChildBlock(node: TestNode, contracts: ParentRollup, blockHash: Hex, sendRoot: Hex): Promise<TransactionReceipt> {
  return node.write({ address: contracts.rollup, abi: standInArtifacts().StandInRollup.abi, functionName: 'confirm' as never, args: [sendRoot, blockHash] as never });
}
