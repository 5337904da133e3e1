/**
 * Fast generation of a large chain of ERC-20 transfers for benchmarks: T AirdropTokens, H holders,
 * N Transfer events, packed as many transfers per transaction and many transactions per block.
 *
 * Balances are simulated here so every transaction is known to succeed before it is sent: that is
 * what lets a whole block be sent without waiting for receipts, and it yields the expected final
 * state for the benchmark to check the indexer against.
 */
import { encodeDeployData, encodeFunctionData, getContractAddress, numberToHex, type Address, type Hex } from 'viem';
import { contracts } from './artifacts.js';
import type { DevnetClient, RpcTransaction } from './client.js';
import { createRng, deriveAddress, paretoAmount, zipf } from './random.js';

export interface BulkOptions {
  /** Total Transfer events, the initial mints (one per holder) included. Must be ≥ holders. */
  transfers: number;
  tokens: number;
  /** Distinct addresses that end up holding at least one token. Must be ≥ tokens. */
  holders: number;
  /** Default 200: under EIP-7825's 16.7M per-transaction gas cap, so the chain would be valid on Osaka too. */
  transfersPerTx?: number;
  /** Default 20. */
  txsPerBlock?: number;
  /**
   * Raised with evm_setBlockGasLimit so blocks hold `txsPerBlock` transactions; default 1e9.
   * Blocks are filled to at most half of it so EIP-1559 never raises the base fee.
   */
  blockGasLimit?: bigint;
  seed?: number | string;
  /** Sender of every transaction. Default: dev account 0. */
  from?: Address | number;
  onProgress?: (progress: { transfers: number; blocks: number }) => void;
}

export interface BulkTokenSummary {
  address: Address;
  symbol: string;
  transfers: number;
  /** Holders with a non-zero balance at the end. */
  holders: number;
}

export interface BulkResult {
  tokens: BulkTokenSummary[];
  holders: Address[];
  /** Transfer events emitted: mints + holder-to-holder transfers. */
  transfers: number;
  mints: number;
  transactions: number;
  /** Blocks holding the generated transactions (deployments included). */
  fromBlock: bigint;
  toBlock: bigint;
  /** Final balances: token → holder → amount (non-zero only). */
  balances: Map<Address, Map<Address, bigint>>;
  elapsedMs: number;
}

/**
 * Gas limits per transaction. Upper bounds measured on the AirdropToken (a first-time holder costs a
 * zero-to-non-zero SSTORE); overestimating only wastes block space, underestimating reverts.
 */
const GAS = { base: 60_000n, perMint: 32_000n, perShuffle: 40_000n, deploy: 1_500_000n };

/** JSON-RPC batches stay under anvil's default 2 MB request limit. */
const MAX_BATCH_BYTES = 1_000_000;

interface PendingTx {
  to?: Address;
  data: Hex;
  gas: bigint;
  /** Transfer events this transaction will emit. */
  transfers: number;
}

interface TokenState {
  address: Address;
  symbol: string;
  transfers: number;
  /** Balances as of the last mined block. */
  balances: Map<number, bigint>;
  /** Holders with a non-zero committed balance, for O(1) random picks. */
  funded: number[];
  fundedIndex: Map<number, number>;
}

function credit(token: TokenState, holder: number, delta: bigint): void {
  const next = (token.balances.get(holder) ?? 0n) + delta;
  if (next < 0n) throw new Error('bulk: simulated balance went negative');
  if (next === 0n) {
    token.balances.delete(holder);
    const at = token.fundedIndex.get(holder);
    if (at !== undefined) {
      const last = token.funded.pop()!;
      token.fundedIndex.delete(holder);
      if (last !== holder) {
        token.funded[at] = last;
        token.fundedIndex.set(last, at);
      }
    }
  } else {
    token.balances.set(holder, next);
    if (!token.fundedIndex.has(holder)) {
      token.fundedIndex.set(holder, token.funded.length);
      token.funded.push(holder);
    }
  }
}

export async function generateBulk(client: DevnetClient, opts: BulkOptions): Promise<BulkResult> {
  const started = Date.now();
  const { transfers: totalTransfers, tokens: tokenCount, holders: holderCount } = opts;
  if (tokenCount < 1) throw new Error('bulk: need at least one token');
  if (holderCount < tokenCount) throw new Error('bulk: holders must be ≥ tokens (every token gets a holder)');
  if (totalTransfers < holderCount) throw new Error('bulk: transfers must be ≥ holders (every holder gets a mint)');
  const perTx = opts.transfersPerTx ?? 200;
  const txsPerBlock = opts.txsPerBlock ?? 20;
  const blockGasLimit = opts.blockGasLimit ?? 1_000_000_000n;
  const gasBudget = blockGasLimit / 2n;
  const rng = createRng(opts.seed ?? 'bulk');
  const from = typeof opts.from === 'string' ? opts.from : client.accounts[opts.from ?? 0];
  if (!from) throw new Error('bulk: no sender account');

  const holders = Array.from({ length: holderCount }, (_, i) => deriveAddress(`bulk-holder:${String(opts.seed ?? '')}`, i));
  const pickTokenIndex = zipf(tokenCount, 1, rng);
  const pickPopularHolder = zipf(holderCount, 1, rng);

  const wasAutomine = await client.getAutomine();
  let nonce = 0n;
  let fromBlock: bigint | undefined;
  let toBlock = 0n;
  let sentTransfers = 0;
  let mints = 0;
  let transactions = 0;
  let blocks = 0;
  let block: PendingTx[] = [];
  let blockGas = 0n;
  /** Balance changes of the block being built, applied once it is mined. */
  let deltas: [TokenState, number, bigint][] = [];
  /**
   * Outflows per token:holder in the block being built. Transactions of one block may run in any
   * order, so a transfer may only spend what was committed before the block, minus these.
   */
  let spent = new Map<string, bigint>();

  const flush = async () => {
    if (block.length === 0) return;
    const txs: RpcTransaction[] = block.map((tx) => {
      const rpc: RpcTransaction = { from, data: tx.data, gas: numberToHex(tx.gas), nonce: numberToHex(nonce++) };
      if (tx.to) rpc.to = tx.to;
      return rpc;
    });
    await sendBatches(client.url, txs);
    await client.mine(1);
    const number = await verifyLatestBlock(client, block.length);
    fromBlock ??= number;
    toBlock = number;
    for (const [token, holder, delta] of deltas) credit(token, holder, delta);
    for (const tx of block) sentTransfers += tx.transfers;
    transactions += block.length;
    blocks++;
    block = [];
    blockGas = 0n;
    deltas = [];
    spent = new Map();
    opts.onProgress?.({ transfers: sentTransfers, blocks });
  };

  /**
   * Called before a transaction's balance changes are recorded: flushing afterwards would mine
   * those changes into the wrong block's accounting.
   */
  const makeRoom = async (gas: bigint) => {
    if (block.length >= txsPerBlock || blockGas + gas > gasBudget) await flush();
  };
  const add = (tx: PendingTx) => {
    block.push(tx);
    blockGas += tx.gas;
  };

  try {
    await client.setAutomine(false);
    await client.request('evm_setBlockGasLimit', [numberToHex(blockGasLimit)]);
    nonce = BigInt(await client.request<Hex>('eth_getTransactionCount', [from, 'pending']));

    const tokens: TokenState[] = [];
    for (let t = 0; t < tokenCount; t++) {
      const symbol = `BULK${t}`;
      const data = encodeDeployData({
        abi: contracts.AirdropToken.abi,
        bytecode: contracts.AirdropToken.bytecode,
        args: [`Bulk Token ${t}`, symbol, 18],
      });
      await makeRoom(GAS.deploy);
      // flush() assigns consecutive nonces in block order, starting at `nonce`.
      const address = getContractAddress({ from, nonce: nonce + BigInt(block.length) });
      add({ data, gas: GAS.deploy, transfers: 0 });
      tokens.push({ address, symbol, transfers: 0, balances: new Map(), funded: [], fundedIndex: new Map() });
    }
    await flush();

    // Mints: every holder gets one, so all of them exist; every token gets at least one holder.
    const mintsByToken: number[][] = tokens.map(() => []);
    for (let h = 0; h < holderCount; h++) mintsByToken[h < tokenCount ? h : pickTokenIndex()]!.push(h);
    for (const [t, recipients] of mintsByToken.entries()) {
      const token = tokens[t]!;
      for (let i = 0; i < recipients.length; i += perTx) {
        const chunk = recipients.slice(i, i + perTx);
        await makeRoom(GAS.base + GAS.perMint * BigInt(chunk.length));
        const amounts = chunk.map(() => paretoAmount(rng, 10n ** 18n));
        chunk.forEach((h, k) => deltas.push([token, h, amounts[k]!]));
        token.transfers += chunk.length;
        mints += chunk.length;
        add({
          to: token.address,
          data: encodeFunctionData({
            abi: contracts.AirdropToken.abi,
            functionName: 'airdrop',
            args: [chunk.map((h) => holders[h]!), amounts],
          }),
          gas: GAS.base + GAS.perMint * BigInt(chunk.length),
          transfers: chunk.length,
        });
      }
    }
    await flush();

    let remaining = totalTransfers - mints;
    while (remaining > 0) {
      const token = tokens[pickTokenIndex()]!;
      const size = Math.min(perTx, remaining);
      await makeRoom(GAS.base + GAS.perShuffle * BigInt(size));
      const froms: Address[] = [];
      const tos: Address[] = [];
      const amounts: bigint[] = [];
      for (let attempts = 0; froms.length < size && attempts < size * 4; attempts++) {
        if (token.funded.length === 0) break;
        const src = rng.pick(token.funded);
        const key = `${token.symbol}:${src}`;
        const available = (token.balances.get(src) ?? 0n) - (spent.get(key) ?? 0n);
        if (available <= 0n) continue;
        // Half the time a popular address (exchanges, routers), otherwise anyone.
        const dst = rng.chance(0.5) ? pickPopularHolder() : rng.int(holderCount);
        if (dst === src) continue;
        const amount = available < 3n ? available : (available * BigInt(1 + rng.int(60))) / 100n;
        spent.set(key, (spent.get(key) ?? 0n) + amount);
        deltas.push([token, src, -amount], [token, dst, amount]);
        froms.push(holders[src]!);
        tos.push(holders[dst]!);
        amounts.push(amount);
      }
      if (froms.length === 0) {
        // Every funded holder of this token already spent in this block: start a new one.
        if (block.length === 0) throw new Error(`bulk: token ${token.symbol} has no spendable balance`);
        await flush();
        continue;
      }
      token.transfers += froms.length;
      remaining -= froms.length;
      add({
        to: token.address,
        data: encodeFunctionData({ abi: contracts.AirdropToken.abi, functionName: 'shuffle', args: [froms, tos, amounts] }),
        gas: GAS.base + GAS.perShuffle * BigInt(froms.length),
        transfers: froms.length,
      });
    }
    await flush();

    const balances = new Map<Address, Map<Address, bigint>>();
    for (const token of tokens) {
      const m = new Map<Address, bigint>();
      for (const [h, amount] of token.balances) m.set(holders[h]!, amount);
      balances.set(token.address, m);
    }
    return {
      tokens: tokens.map((t) => ({ address: t.address, symbol: t.symbol, transfers: t.transfers, holders: t.balances.size })),
      holders,
      transfers: sentTransfers,
      mints,
      transactions,
      fromBlock: fromBlock ?? toBlock,
      toBlock,
      balances,
      elapsedMs: Date.now() - started,
    };
  } finally {
    await client.setAutomine(wasAutomine);
  }
}

async function sendBatches(url: string, txs: RpcTransaction[]): Promise<void> {
  let batch: string[] = [];
  let bytes = 0;
  const post = async () => {
    if (batch.length === 0) return;
    const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `[${batch.join(',')}]` });
    const answers = (await res.json()) as { error?: { message: string } }[];
    const failed = answers.find((a) => a.error);
    if (failed) throw new Error(`bulk: eth_sendTransaction failed: ${failed.error!.message}`);
    batch = [];
    bytes = 0;
  };
  for (const [i, tx] of txs.entries()) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_sendTransaction', params: [tx] });
    if (bytes + body.length > MAX_BATCH_BYTES) await post();
    batch.push(body);
    bytes += body.length;
  }
  await post();
}

/** Fails loudly if the block did not take every transaction or one of them reverted: the simulated state would be wrong from then on. */
async function verifyLatestBlock(client: DevnetClient, expectedTxs: number): Promise<bigint> {
  const receipts = await client.request<{ status: Hex; blockNumber: Hex; transactionHash: Hex }[]>('eth_getBlockReceipts', ['latest']);
  if (receipts.length !== expectedTxs) {
    throw new Error(`bulk: mined block holds ${receipts.length} of ${expectedTxs} transactions (block gas limit too low?)`);
  }
  const reverted = receipts.find((r) => r.status !== '0x1');
  if (reverted) throw new Error(`bulk: transaction ${reverted.transactionHash} reverted`);
  return BigInt(receipts[0]?.blockNumber ?? (await client.request<Hex>('eth_blockNumber')));
}
