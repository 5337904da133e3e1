/**
 * viem clients and anvil-specific helpers for a devnet node. Transactions are sent with
 * eth_sendTransaction from anvil's unlocked (or impersonated) accounts, so no keys are handled here.
 */
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  encodeDeployData,
  encodeFunctionData,
  getAddress,
  http,
  numberToHex,
  type Abi,
  type Address,
  type Chain,
  type ContractConstructorArgs,
  type ContractFunctionArgs,
  type ContractFunctionName,
  type EncodeDeployDataParameters,
  type EncodeFunctionDataParameters,
  type Hash,
  type Hex,
  type PublicClient,
  type TestClient,
  type Transport,
  type TransactionReceipt,
  type WalletClient,
  type Account,
} from 'viem';
import { setTimeout as sleep } from 'node:timers/promises';

/** Transaction as eth_sendTransaction takes it (hex quantities). */
export interface RpcTransaction {
  from: Address;
  to?: Address;
  data?: Hex;
  value?: Hex;
  gas?: Hex;
  nonce?: Hex;
  gasPrice?: Hex;
}

export interface SendOptions {
  /** Sender: an address, or an index into the node's dev accounts. Default: dev account 0. */
  from?: Address | number;
  value?: bigint;
  /** Skips eth_estimateGas, e.g. when the transaction depends on others not mined yet. */
  gas?: bigint;
  /**
   * Whether to mine a block for the transaction. 'auto' (default) mines only if automine is off.
   * Pass false under interval mining, where a block will come anyway.
   */
  mine?: boolean | 'auto';
}

export interface Artifact<TAbi extends Abi = Abi> {
  abi: TAbi;
  bytecode: Hex;
}

type WriteFunctionName<TAbi extends Abi> = ContractFunctionName<TAbi, 'nonpayable' | 'payable'>;

export interface WriteParameters<TAbi extends Abi, TName extends WriteFunctionName<TAbi>> extends SendOptions {
  address: Address;
  abi: TAbi;
  functionName: TName;
  args?: ContractFunctionArgs<TAbi, 'nonpayable' | 'payable', TName>;
}

export interface DevnetClient {
  url: string;
  chain: Chain;
  public: PublicClient<Transport, Chain>;
  test: TestClient<'anvil', Transport, Chain>;
  /** The node's unlocked dev accounts (eth_accounts). */
  accounts: Address[];
  /** Wallet client for a dev account (index) or any address (requires impersonation). */
  wallet(from?: Address | number): WalletClient<Transport, Chain, Account>;
  /** Raw JSON-RPC call, for methods viem does not model (anvil_reorg, anvil_rollback, ...). */
  request<T = unknown>(method: string, params?: unknown[]): Promise<T>;
  mine(blocks?: number): Promise<void>;
  setCoinbase(address: Address): Promise<void>;
  snapshot(): Promise<Hex>;
  /** Reverts to a snapshot; false if the id was unknown. A snapshot can be reverted to only once. */
  revert(id: Hex): Promise<boolean>;
  /**
   * anvil_reorg: replaces the last `depth` blocks with `depth` new ones (new hashes), optionally
   * including `txs[i][0]` in the new block at offset `txs[i][1]` (0 = first replaced block).
   */
  reorg(depth: number, txs?: [tx: RpcTransaction | Hex, blockOffset: number][]): Promise<void>;
  /** anvil_rollback: drops the last `depth` blocks without replacing them. */
  rollback(depth: number): Promise<void>;
  getAutomine(): Promise<boolean>;
  setAutomine(enabled: boolean): Promise<void>;
  /** 0 disables interval mining. */
  setIntervalMining(seconds: number): Promise<void>;
  setNextBlockBaseFee(wei: bigint): Promise<void>;
  setNextBlockTimestamp(timestamp: bigint | number): Promise<void>;
  setBalance(address: Address, wei: bigint): Promise<void>;
  /** Lets eth_sendTransaction use any `from`, as if every account were unlocked. */
  setAutoImpersonate(enabled: boolean): Promise<void>;
  /** Sends and returns the hash without waiting; the caller mines. */
  sendTransaction(tx: RpcTransaction): Promise<Hash>;
  /** Sends, mines if needed, and returns the successful receipt (throws on revert). */
  send(tx: { to?: Address; data?: Hex } & SendOptions): Promise<TransactionReceipt>;
  write<const TAbi extends Abi, TName extends WriteFunctionName<TAbi>>(
    params: WriteParameters<TAbi, TName>,
  ): Promise<TransactionReceipt>;
  deploy<const TAbi extends Abi>(
    artifact: Artifact<TAbi>,
    args: ContractConstructorArgs<TAbi>,
    opts?: SendOptions,
  ): Promise<{ address: Address; receipt: TransactionReceipt }>;
  waitReceipt(hash: Hash, timeoutMs?: number): Promise<TransactionReceipt>;
}

export interface ConnectOptions {
  /** Skips the eth_chainId round trip when known. */
  chainId?: number;
  /** Receipt polling interval. Default 20 ms: anvil answers in microseconds, viem's default 4 s is for real chains. */
  pollingIntervalMs?: number;
}

export function devnetChain(id: number, url: string): Chain {
  return defineChain({
    id,
    name: `Devnet ${id}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  });
}

let rpcId = 0;

/** Raw JSON-RPC calls to a local node, for methods viem does not model; an error answer throws. */
export function jsonRpcRequester(url: string) {
  return async <T = unknown>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: ++rpcId, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { code: number; message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message} (${body.error.code})`);
    return body.result as T;
  };
}

/**
 * How large an answer the local node may send. `anvil_dumpState` carries the chain's blocks and
 * transactions as well as its state, so it grows with the chain: the demo's passed viem's 10 MB
 * default after about 40 minutes and its state stopped being saved. The node is our own child,
 * so the bound is V8's string limit's half, not a defence.
 */
const DEVNET_MAX_RESPONSE_BYTES = 256 * 2 ** 20;

export async function connectDevnet(url: string, opts: ConnectOptions = {}): Promise<DevnetClient> {
  const pollingInterval = opts.pollingIntervalMs ?? 20;
  const request = jsonRpcRequester(url);

  const chainId = opts.chainId ?? Number(await request<Hex>('eth_chainId'));
  const chain = devnetChain(chainId, url);
  const transport = http(url, { maxResponseBodySize: DEVNET_MAX_RESPONSE_BYTES });
  // cacheTime 0: viem otherwise serves getBlockNumber from cache, stale right after mine().
  const publicClient = createPublicClient({ chain, transport, pollingInterval, cacheTime: 0 });
  const testClient = createTestClient({ mode: 'anvil', chain, transport, pollingInterval });
  const accounts = (await request<string[]>('eth_accounts')).map((a) => getAddress(a));

  const senderOf = (from: Address | number | undefined): Address => {
    if (typeof from === 'string') return from;
    const account = accounts[from ?? 0];
    if (!account) throw new Error(`no dev account #${from ?? 0} (node has ${accounts.length})`);
    return account;
  };

  const wallets = new Map<Address, WalletClient<Transport, Chain, Account>>();
  const wallet = (from?: Address | number) => {
    const address = senderOf(from);
    let w = wallets.get(address);
    if (!w) {
      w = createWalletClient({ account: address, chain, transport, pollingInterval });
      wallets.set(address, w);
    }
    return w;
  };

  const waitReceipt = async (hash: Hash, timeoutMs = 30_000): Promise<TransactionReceipt> => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const receipt = await publicClient.getTransactionReceipt({ hash }).catch(() => undefined);
      if (receipt) return receipt;
      if (Date.now() > deadline) throw new Error(`no receipt for ${hash} after ${timeoutMs} ms (is the node mining?)`);
      await sleep(pollingInterval);
    }
  };

  const sendTransaction = (tx: RpcTransaction) => request<Hash>('eth_sendTransaction', [tx]);

  const getAutomine = () => request<boolean>('anvil_getAutomine');

  const mine = (blocks = 1) => testClient.mine({ blocks });

  const send: DevnetClient['send'] = async ({ to, data, from, value, gas, mine: mineMode = 'auto' }) => {
    const tx: RpcTransaction = { from: senderOf(from) };
    if (to) tx.to = to;
    if (data) tx.data = data;
    if (value !== undefined) tx.value = numberToHex(value);
    if (gas !== undefined) tx.gas = numberToHex(gas);
    const hash = await sendTransaction(tx);
    if (mineMode === true || (mineMode === 'auto' && !(await getAutomine()))) await mine(1);
    const receipt = await waitReceipt(hash);
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };

  const client: DevnetClient = {
    url,
    chain,
    public: publicClient,
    test: testClient,
    accounts,
    wallet,
    request,
    mine,
    setCoinbase: (address) => testClient.setCoinbase({ address }),
    snapshot: () => testClient.snapshot(),
    revert: (id) => request<boolean>('evm_revert', [id]),
    reorg: async (depth, txs = []) => {
      await request('anvil_reorg', [depth, txs]);
    },
    rollback: async (depth) => {
      await request('anvil_rollback', [depth]);
    },
    getAutomine,
    setAutomine: (enabled) => testClient.setAutomine(enabled),
    setIntervalMining: (seconds) => testClient.setIntervalMining({ interval: seconds }),
    setNextBlockBaseFee: (wei) => testClient.setNextBlockBaseFeePerGas({ baseFeePerGas: wei }),
    setNextBlockTimestamp: (timestamp) => testClient.setNextBlockTimestamp({ timestamp: BigInt(timestamp) }),
    setBalance: (address, wei) => testClient.setBalance({ address, value: wei }),
    setAutoImpersonate: async (enabled) => {
      await request('anvil_autoImpersonateAccount', [enabled]);
    },
    sendTransaction,
    send,
    write: (params) => {
      const { address, abi, functionName, args, ...rest } = params;
      // viem's conditional `args` typing cannot be satisfied generically; WriteParameters already
      // checked the call site.
      const data = encodeFunctionData({ abi, functionName, args } as EncodeFunctionDataParameters);
      return send({ to: address, data, ...rest });
    },
    deploy: async (artifact, args, opts = {}) => {
      const data = encodeDeployData({ abi: artifact.abi, bytecode: artifact.bytecode, args } as EncodeDeployDataParameters);
      const receipt = await send({ data, ...opts });
      if (!receipt.contractAddress) throw new Error(`deployment ${receipt.transactionHash} created no contract`);
      return { address: getAddress(receipt.contractAddress), receipt };
    },
    waitReceipt,
  };
  return client;
}
