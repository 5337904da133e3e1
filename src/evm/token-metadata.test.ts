import { encodeAbiParameters, stringToHex } from 'viem';
import { afterEach, describe, expect, it } from 'vitest';
import { ReplayRpcError, startReplayServer, type ReplayServer } from '../../test/support/replay-rpc.js';
import type { Hex } from '../db/rows.js';
import { createRpcClient } from '../rpc/client.js';
import { TOKEN_SELECTORS, decodeDecimalsResult, decodeStringResult, fetchTokenMetadata } from './token-metadata.js';

const MKR = '0x9f8f72aa9304c8b593d555f12ef6589cc3a579a2';
const USDT = '0xdac17f958d2ee523a2206206994597c13d831ec7';
const NOT_A_TOKEN = '0x00000000219ab540356cbb839cbe05303d7705fa';
const ODD = '0x1111111111111111111111111111111111111111';

const abiString = (text: string) => encodeAbiParameters([{ type: 'string' }], [text]);
const uint = (value: bigint) => encodeAbiParameters([{ type: 'uint256' }], [value]);

// Encoded as these contracts answer on mainnet (MKR predates string metadata and returns
// bytes32); the supply figure is illustrative.
const answers: Record<string, Partial<Record<Hex, Hex>>> = {
  [MKR]: {
    [TOKEN_SELECTORS.name]: stringToHex('Maker', { size: 32 }),
    [TOKEN_SELECTORS.symbol]: stringToHex('MKR', { size: 32 }),
    [TOKEN_SELECTORS.decimals]: uint(18n),
    [TOKEN_SELECTORS.totalSupply]: uint(977_631_036_990_000_000_000_000n),
  },
  [USDT]: {
    [TOKEN_SELECTORS.name]: abiString('Tether USD'),
    [TOKEN_SELECTORS.symbol]: abiString('USDT'),
    [TOKEN_SELECTORS.decimals]: uint(6n),
  },
  [ODD]: {
    [TOKEN_SELECTORS.name]: abiString('Odd\u0000Token'),
    [TOKEN_SELECTORS.symbol]: '0x',
    [TOKEN_SELECTORS.decimals]: uint(2n ** 255n),
    [TOKEN_SELECTORS.totalSupply]: '0x1234',
  },
};

const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('fetchTokenMetadata', () => {
  it('reads string and bytes32 metadata; failing calls give null; every token gets an entry', async () => {
    const server = await startReplayServer({
      sets: [],
      handlers: {
        eth_call: ([call]) => {
          const { to, data } = call as { to: string; data: Hex };
          const answer = answers[to.toLowerCase()]?.[data];
          if (answer === undefined) throw new ReplayRpcError(3, 'execution reverted');
          return answer;
        },
      },
    });
    servers.push(server);
    const rpc = createRpcClient({ chainId: 1, urls: [server.url] });
    const metadata = await fetchTokenMetadata(rpc, [MKR, USDT.toUpperCase().replace('0X', '0x'), NOT_A_TOKEN, ODD, MKR]);
    expect([...metadata.keys()]).toEqual([MKR, USDT, NOT_A_TOKEN, ODD]);
    expect(metadata.get(MKR)).toEqual({ name: 'Maker', symbol: 'MKR', decimals: 18, totalSupply: 977_631_036_990_000_000_000_000n });
    expect(metadata.get(USDT)).toEqual({ name: 'Tether USD', symbol: 'USDT', decimals: 6, totalSupply: null });
    expect(metadata.get(NOT_A_TOKEN)).toEqual({ name: null, symbol: null, decimals: null, totalSupply: null });
    expect(metadata.get(ODD)).toEqual({ name: 'OddToken', symbol: null, decimals: null, totalSupply: null });
    // 16 eth_calls, batched into a single HTTP exchange
    expect(server.callCount('eth_call')).toBe(16);
    expect(server.calls).toHaveLength(1);
  });

  it('lets node faults through instead of recording them as missing metadata', async () => {
    const server = await startReplayServer({ sets: [] });
    servers.push(server);
    server.injectFault({ kind: 'status', status: 503 }, { times: 100 });
    const rpc = createRpcClient({ chainId: 1, urls: [server.url], retry: { baseDelayMs: 1, maxDelayMs: 2, attemptsPerUrl: 1, maxRounds: 2 } });
    await expect(fetchTokenMetadata(rpc, [MKR])).rejects.toThrow(/gave up/);
  });
});

describe('result decoding', () => {
  it('rejects string results whose offsets or lengths point outside the data', () => {
    const valid = abiString('abc');
    expect(decodeStringResult(valid)).toBe('abc');
    expect(decodeStringResult(`${valid.slice(0, 66)}${'f'.repeat(64)}` as Hex)).toBeNull();
    expect(decodeStringResult(`0x${'ff'.repeat(64)}`)).toBeNull();
    expect(decodeStringResult(stringToHex('', { size: 32 }))).toBeNull();
    expect(decodeDecimalsResult(uint(255n))).toBe(255);
    expect(decodeDecimalsResult(uint(256n))).toBeNull();
  });
});
