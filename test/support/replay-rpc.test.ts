import { afterEach, describe, expect, it } from 'vitest';
import { fixtureDir, fixtureResult, recordedExchanges, startReplayServer, type ReplayServer } from './replay-rpc.js';

const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function post(server: ReplayServer, body: unknown): Promise<{ status: number; text: string }> {
  const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  return { status: response.status, text: await response.text() };
}
const call = (id: number, method: string, params: unknown[] = []) => ({ jsonrpc: '2.0', id, method, params });

describe('fixture readers', () => {
  it('find the shared fixtures and read all three recording formats', () => {
    expect(fixtureDir.endsWith('shared/fixtures/real')).toBe(true);
    expect(recordedExchanges('ethereum-mainnet/blocks-17000000-17000001.eth_getBlockByHash.full.batch.json')).toHaveLength(2);
    expect(fixtureResult<{ number: string }>('ethereum-mainnet/blocks-17000000-17000001.eth_getBlockByHash.full.batch.json', 1).number).toBe('0x1036641');
    const [etl] = recordedExchanges('ethereum-etl-block-508110/web3_response.eth_getBlockByNumber_0x7c0ce_false.json');
    expect(etl).toMatchObject({ method: 'eth_getBlockByNumber', params: ['0x7c0ce', false] });
  });
});

describe('startReplayServer', () => {
  it('answers batches from the recordings, in request order with request ids', async () => {
    const server = await startReplayServer();
    servers.push(server);
    const { text } = await post(server, [
      call(7, 'eth_getBlockByHash', ['0x96cfa0fb5e50b0a3f6cc76f3299cfbf48f17e8b41798d1394474e67ec8a97e9f', false]),
      call(8, 'eth_getBlockByNumber', ['0x112A880', true]),
      call(9, 'eth_getBlockByNumber', ['0x1', false]),
      call(10, 'ots_getBlockDetails', ['0xf42400']),
      call(11, 'no_suchMethod'),
    ]);
    const [byHash, byNumber, unknown, verbatim, missing] = JSON.parse(text) as { id: number; result?: any; error?: any }[];
    expect(byHash?.id).toBe(7);
    expect(byHash?.result.number).toBe('0x1036640');
    expect(typeof byHash?.result.transactions[0]).toBe('string');
    expect(byNumber?.result.transactions).toHaveLength(94);
    expect(unknown?.result).toBeNull();
    expect(verbatim?.result.totalFees).toBeDefined();
    expect(missing?.error.code).toBe(-32601);
  });

  it('serves receipts by block and by transaction, and filters logs by range and topic', async () => {
    const server = await startReplayServer({ sets: ['ethereum-mainnet'] });
    servers.push(server);
    const { text } = await post(server, [
      call(1, 'eth_getBlockReceipts', ['0x1036640']),
      call(2, 'eth_getTransactionReceipt', [fixtureResult<{ transactionHash: string }[]>('ethereum-mainnet/block-15000000.erigon_getBlockReceiptsByBlockHash.json')[5]?.transactionHash]),
      call(3, 'eth_getLogs', [{ fromBlock: '0xf42401', toBlock: '0xf42401', topics: [['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef']] }]),
      call(4, 'eth_getLogs', [{ fromBlock: '0xf42400', toBlock: '0xf42403', topics: [['0x00']] }]),
    ]);
    const [receipts, receipt, logs, none] = JSON.parse(text) as { result: unknown[] & { blockNumber?: string } }[];
    expect(receipts?.result).toHaveLength(102);
    expect(receipt?.result.blockNumber).toBe('0xe4e1c0');
    expect(logs?.result).toHaveLength(108);
    expect(none?.result).toEqual([]);
  });

  it('injects faults per exchange or per call, for a given method and number of times', async () => {
    const server = await startReplayServer({ sets: [] });
    servers.push(server);
    server.injectFault({ kind: 'status', status: 429, retryAfter: '3' }, { method: 'eth_chainId' });
    server.injectFault({ kind: 'truncate' });
    server.injectFault({ kind: 'wrong-id' });
    server.injectFault({ kind: 'rpc-error', code: -32005, message: 'limit' }, { method: 'eth_blockNumber', times: 2 });
    // The 429 waits for an eth_chainId exchange; the truncation takes the first exchange.
    const truncated = (await post(server, call(1, 'eth_blockNumber'))).text;
    expect(truncated).toBe('{"jsonrpc":"2.0","id":1,"error":{"code":-32005,"message":"limit"}}'.slice(0, 33));
    expect((await post(server, call(1, 'eth_chainId'))).status).toBe(429);
    expect(JSON.parse((await post(server, call(1, 'eth_blockNumber'))).text)).toMatchObject({ id: 1001, error: { code: -32005 } });
    expect(JSON.parse((await post(server, call(1, 'eth_blockNumber'))).text)).toEqual({ jsonrpc: '2.0', id: 1, result: '0x0' });
    expect(server.calls.map((c) => c.fault)).toEqual(['truncate', 'status', 'wrong-id', null]);
  });
});
