import { keccak256, toHex } from 'viem';
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/support/replay-rpc.js';
import type { Hex } from '../db/rows.js';
import type { RpcBlock, RpcLog, RpcReceipt, RpcTransaction } from '../rpc/types.js';
import {
  DEPOSIT_TOPIC,
  TOKEN_EVENT_TOPICS,
  TRANSFER_BATCH_TOPIC,
  TRANSFER_SINGLE_TOPIC,
  TRANSFER_TOPIC,
  WITHDRAWAL_TOPIC,
  decodeTokenTransfers,
  tokenEventTopicsFilter,
} from './token-events.js';

const WETH = '0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2';
const USDT = '0xdac17f958d2ee523a2206206994597c13d831ec7';
const ZERO = '0x0000000000000000000000000000000000000000';

const logsFixture = () => fixtureResult<RpcLog[]>('ethereum-mainnet/logs-16000000-16000003.erc20-transfers.eth_getLogs.json');
const receiptLogs = (file: string) => fixtureResult<RpcReceipt[]>(`ethereum-mainnet/${file}`).flatMap((r) => r.logs);
const countBy = <T>(items: T[], key: (item: T) => string) =>
  items.reduce<Record<string, number>>((acc, item) => ({ ...acc, [key(item)]: (acc[key(item)] ?? 0) + 1 }), {});

describe('event topics', () => {
  it('are the keccak-256 of the canonical signatures', () => {
    const topic = (signature: string) => keccak256(toHex(signature));
    expect(TRANSFER_TOPIC).toBe('0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef');
    expect(TRANSFER_SINGLE_TOPIC).toBe(topic('TransferSingle(address,address,address,uint256,uint256)'));
    expect(TRANSFER_BATCH_TOPIC).toBe(topic('TransferBatch(address,address,address,uint256[],uint256[])'));
    expect(DEPOSIT_TOPIC).toBe('0xe1fffcc4923d04b559f4d29a8bfc6cda04eb5b0d3c460751c2402c5c5cc9109c');
    expect(WITHDRAWAL_TOPIC).toBe('0x7fcf532c15f0a6db0bd6d0e038bea71d30d808c7d98cb3bf7268a95bf5081b65');
    expect(tokenEventTopicsFilter()).toEqual([[...TOKEN_EVENT_TOPICS]]);
    expect(tokenEventTopicsFilter({ wrappedNative: false })[0]).toHaveLength(3);
  });
});

describe('decodeTokenTransfers on the recorded eth_getLogs (blocks 16,000,000–16,000,003)', () => {
  const logs = logsFixture();
  const transfers = decodeTokenTransfers(logs);

  it('decodes all 431 Transfer logs: 325 ERC-20 style, 106 ERC-721 style, from 121 contracts', () => {
    expect(transfers).toHaveLength(431);
    expect(countBy(transfers, (t) => t.tokenType)).toEqual({ 'ERC-20': 325, 'ERC-721': 106 });
    expect(new Set(transfers.map((t) => t.token)).size).toBe(121);
    expect(transfers.filter((t) => t.token === WETH)).toHaveLength(75);
    expect(transfers.filter((t) => t.token === USDT)).toHaveLength(46);
  });

  it('keeps each log’s position and reads amounts and ids from the right place', () => {
    transfers.forEach((t, i) => {
      const log = logs[i] as RpcLog;
      expect(t).toMatchObject({ logIndex: Number(log.logIndex), blockNumber: BigInt(log.blockNumber ?? ''), txHash: log.transactionHash });
      expect(t.from).toBe(`0x${log.topics[1]?.slice(26)}`);
      expect(t.to).toBe(`0x${log.topics[2]?.slice(26)}`);
      if (t.tokenType === 'ERC-20') expect([t.tokenId, t.value]).toEqual([null, BigInt(log.data)]);
      else expect([t.tokenId, t.value]).toEqual([BigInt(log.topics[3] ?? ''), 1n]);
    });
  });

  it('skips malformed logs instead of failing', () => {
    const [erc20, erc721] = [logs.find((l) => l.topics.length === 3), logs.find((l) => l.topics.length === 4)] as [RpcLog, RpcLog];
    const broken: RpcLog[] = [
      { ...erc20, data: `${erc20.data}00` as Hex }, // 33 data bytes
      { ...erc20, data: '0x' }, // no value
      { ...erc721, data: `0x${'00'.repeat(32)}` }, // ERC-721 with data
      { ...erc20, topics: [TRANSFER_TOPIC, `0x${'ff'.repeat(32)}`, erc20.topics[2] as Hex] }, // not an address
      { ...erc20, topics: [TRANSFER_TOPIC, erc20.topics[1] as Hex] }, // 2 topics
      { ...erc20, data: '0xabc' as Hex }, // odd hex
      { ...erc20, topics: [] },
      { ...erc20, removed: true },
      { ...erc20, blockNumber: null, blockHash: null, logIndex: null }, // pending
    ];
    expect(decodeTokenTransfers(broken)).toEqual([]);
  });
});

describe('decodeTokenTransfers on real block receipts', () => {
  it('18,000,000: WETH Deposit/Withdrawal become mints/burns only for listed wrapped tokens', () => {
    const logs = receiptLogs('block-18000000.eth_getBlockReceipts.json');
    expect(decodeTokenTransfers(logs)).toHaveLength(141 + 2);
    const transfers = decodeTokenTransfers(logs, { wrappedNativeTokens: [WETH.toUpperCase().replace('0X', '0x')] });
    const mints = transfers.filter((t) => t.token === WETH && t.from === ZERO);
    const burns = transfers.filter((t) => t.token === WETH && t.to === ZERO);
    expect(mints).toHaveLength(14);
    expect(burns).toHaveLength(10);
    // Independent check from the block's transactions: in this block every WETH deposit wraps
    // exactly the ether its transaction sent.
    const block = fixtureResult<RpcBlock>('ethereum-mainnet/block-18000000.eth_getBlockByNumber.full.json');
    const txs = new Map((block.transactions as RpcTransaction[]).map((tx) => [tx.hash, tx]));
    for (const mint of mints) expect(mint.value).toBe(BigInt(String(txs.get(mint.txHash)?.['value'])));
  });

  it('15,000,000: ERC-1155 TransferSingle and TransferBatch; a non-token Deposit is ignored', () => {
    const logs = receiptLogs('block-15000000.erigon_getBlockReceiptsByBlockHash.json');
    const transfers = decodeTokenTransfers(logs, { wrappedNativeTokens: [WETH, '0x07ee55aa48bb72dcc6e9d78256648910de513eca'] });
    expect(countBy(transfers, (t) => t.tokenType)).toEqual({ 'ERC-20': 233 + 20 + 14, 'ERC-721': 92, 'ERC-1155': 5 + 1 });
    // The contract 0x07ee…3eca emits an unindexed Deposit(address,uint256): same topic, other shape.
    expect(transfers.some((t) => t.token === '0x07ee55aa48bb72dcc6e9d78256648910de513eca')).toBe(false);

    const batchLog = logs.find((l) => l.topics[0] === TRANSFER_BATCH_TOPIC) as RpcLog;
    const words = (batchLog.data.slice(2).match(/.{64}/g) ?? []).map((w) => BigInt(`0x${w}`));
    // abi.encode(uint256[] ids, uint256[] values): [offset, offset, 1, id, 1, value]
    expect(words).toHaveLength(6);
    const batch = transfers.filter((t) => t.txHash === batchLog.transactionHash && t.logIndex === Number(batchLog.logIndex));
    expect(batch).toEqual([
      expect.objectContaining({
        tokenType: 'ERC-1155',
        from: `0x${batchLog.topics[2]?.slice(26)}`,
        to: `0x${batchLog.topics[3]?.slice(26)}`,
        tokenId: words[3],
        value: words[5],
        batchIndex: 0,
      }),
    ]);
  });

  it('17,000,000: TransferSingle carries id and amount in data', () => {
    const logs = receiptLogs('block-17000000.erigon_getBlockReceiptsByBlockHash.json');
    const singles = logs.filter((l) => l.topics[0] === TRANSFER_SINGLE_TOPIC);
    const transfers = decodeTokenTransfers(singles);
    expect(transfers).toHaveLength(3);
    transfers.forEach((t, i) => {
      const data = singles[i]?.data ?? '0x';
      expect([t.tokenId, t.value]).toEqual([BigInt(`0x${data.slice(2, 66)}`), BigInt(`0x${data.slice(66, 130)}`)]);
    });
  });

  it('decodes a multi-item TransferBatch and rejects inconsistent arrays', () => {
    const batchLog = receiptLogs('block-15000000.erigon_getBlockReceiptsByBlockHash.json').find((l) => l.topics[0] === TRANSFER_BATCH_TOPIC) as RpcLog;
    const word = (n: bigint) => n.toString(16).padStart(64, '0');
    const encode = (ids: bigint[], values: bigint[]) =>
      `0x${[0x40n, BigInt(0x60 + ids.length * 32), BigInt(ids.length), ...ids, BigInt(values.length), ...values].map(word).join('')}` as Hex;
    const two = decodeTokenTransfers([{ ...batchLog, data: encode([7n, 8n], [70n, 80n]) }]);
    expect(two.map((t) => [t.tokenId, t.value, t.batchIndex])).toEqual([
      [7n, 70n, 0],
      [8n, 80n, 1],
    ]);
    expect(decodeTokenTransfers([{ ...batchLog, data: encode([7n, 8n], [70n]) }])).toEqual([]);
    expect(decodeTokenTransfers([{ ...batchLog, data: `0x${word(0x40n)}` }])).toEqual([]);
  });
});
