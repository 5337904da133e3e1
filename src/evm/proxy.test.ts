import { afterEach, describe, expect, it } from 'vitest';
import { ReplayRpcError, startReplayServer, type ReplayServer } from '../../test/support/replay-rpc.js';
import type { Hex } from '../db/rows.js';
import {
  EIP1822_PROXIABLE_SLOT,
  EIP1967_BEACON_SLOT,
  EIP1967_IMPLEMENTATION_SLOT,
  delegationTarget,
  detectProxies,
  minimalProxyImplementation,
} from './proxy.js';
import { createRpcClient } from '../rpc/client.js';

const address = (byte: string) => `0x${byte.repeat(20)}` as Hex;
const word = (addr: Hex) => `0x${addr.slice(2).padStart(64, '0')}` as Hex;
const ZERO_WORD = `0x${'0'.repeat(64)}` as Hex;

const IMPL = address('aa');
const BEACON = address('bb');
const SOME_CODE = '0x6080604052348015600f57600080fd5b50' as Hex;

// The EIP-1167 reference bytecode and the EIP-7702 designator, around a given address.
const cloneOf = (impl: Hex) => `0x363d3d373d3d3d363d73${impl.slice(2)}5af43d82803e903d91602b57fd5bf3` as Hex;
const delegatedTo = (impl: Hex) => `0xef0100${impl.slice(2)}` as Hex;

const accounts: Record<Hex, { code: Hex; storage?: Record<Hex, Hex> }> = {
  [address('01')]: { code: '0x' }, // externally owned
  [address('02')]: { code: cloneOf(IMPL) },
  [address('03')]: { code: delegatedTo(IMPL) },
  [address('04')]: { code: SOME_CODE, storage: { [EIP1967_IMPLEMENTATION_SLOT]: word(IMPL) } },
  [address('05')]: { code: SOME_CODE, storage: { [EIP1967_BEACON_SLOT]: word(BEACON) } },
  [address('06')]: { code: SOME_CODE, storage: { [EIP1822_PROXIABLE_SLOT]: word(IMPL) } },
  [address('07')]: { code: SOME_CODE },
  [address('08')]: { code: SOME_CODE, storage: { [EIP1967_BEACON_SLOT]: word(address('0e')) } }, // beacon reverts
  [address('09')]: { code: SOME_CODE, storage: { [EIP1967_IMPLEMENTATION_SLOT]: `0x${'ff'.repeat(32)}` } }, // not an address
};

const servers: ReplayServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

describe('slot constants', () => {
  it('are the values the EIPs publish', () => {
    expect(EIP1967_IMPLEMENTATION_SLOT).toBe('0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc');
    expect(EIP1967_BEACON_SLOT).toBe('0xa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6cb3582b35133d50');
    expect(EIP1822_PROXIABLE_SLOT).toBe('0xc5f16f0fcc639fa48a6947836d9850f504798523bf8c9a3a87d5876cf622bcf7');
  });
});

describe('bytecode patterns', () => {
  it('finds the implementation of minimal proxies and 7702 delegations only in exact shapes', () => {
    expect(minimalProxyImplementation(cloneOf(IMPL))).toBe(IMPL);
    expect(minimalProxyImplementation(`${cloneOf(IMPL)}00` as Hex)).toBeNull();
    expect(delegationTarget(delegatedTo(IMPL).toUpperCase().replace('0X', '0x') as Hex)).toBe(IMPL);
    expect(delegationTarget(`${delegatedTo(IMPL)}00` as Hex)).toBeNull();
  });
});

describe('detectProxies', () => {
  it('classifies every kind in three batched rounds', async () => {
    const server = await startReplayServer({
      sets: [],
      handlers: {
        eth_getCode: ([addr]) => accounts[String(addr).toLowerCase() as Hex]?.code ?? '0x',
        eth_getStorageAt: ([addr, slot]) => accounts[String(addr).toLowerCase() as Hex]?.storage?.[String(slot) as Hex] ?? ZERO_WORD,
        eth_call: ([call]) => {
          const { to, data } = call as { to: string; data: string };
          if (to.toLowerCase() === BEACON && data === '0x5c60da1b') return word(IMPL);
          throw new ReplayRpcError(3, 'execution reverted');
        },
      },
    });
    servers.push(server);
    const rpc = createRpcClient({ chainId: 1, urls: [server.url] });
    const result = await detectProxies(rpc, Object.keys(accounts));
    expect(Object.fromEntries(result)).toEqual({
      [address('01')]: { isContract: false, proxyType: null, implementations: [] },
      [address('02')]: { isContract: true, proxyType: 'eip1167', implementations: [IMPL] },
      [address('03')]: { isContract: true, proxyType: 'eip7702', implementations: [IMPL] },
      [address('04')]: { isContract: true, proxyType: 'eip1967', implementations: [IMPL] },
      [address('05')]: { isContract: true, proxyType: 'eip1967_beacon', implementations: [IMPL] },
      [address('06')]: { isContract: true, proxyType: 'eip1822', implementations: [IMPL] },
      [address('07')]: { isContract: true, proxyType: null, implementations: [] },
      [address('08')]: { isContract: true, proxyType: 'eip1967_beacon', implementations: [] },
      [address('09')]: { isContract: true, proxyType: null, implementations: [] },
    });
    // storage is read only for the six contracts whose bytecode decided nothing
    expect(server.callCount('eth_getStorageAt')).toBe(6 * 3);
    expect(server.calls.map((c) => new Set(c.methods).size === 1 && c.methods[0])).toEqual(['eth_getCode', 'eth_getStorageAt', 'eth_call']);
  });
});
