/**
 * Is an address a contract, and is it a proxy — to what? Read from bytecode and storage only:
 *  - EIP-7702 delegation designator: the account's code is 0xef0100 ‖ address;
 *  - EIP-1167 minimal proxy: the implementation address is inside the 45-byte bytecode;
 *  - EIP-1967: implementation slot, or beacon slot (the implementation is the beacon's
 *    `implementation()`);
 *  - EIP-1822 (UUPS): the PROXIABLE slot.
 * Everything is batched: code for all addresses first, storage only for contracts that need it,
 * beacon calls last.
 */
import { keccak256, toHex } from 'viem';
import type { Hex, ProxyType } from '../db/rows.js';
import { mapInRounds } from '../rpc/concurrency.js';
import { hexByteLength, lowerHex, wordToAddress, ZERO_ADDRESS } from './hex.js';
import { callOrNull, type BlockRef, type RpcClient } from '../rpc/client.js';

export interface ProxyInfo {
  isContract: boolean;
  proxyType: ProxyType | null;
  /** lowercase; empty when not a proxy (or a beacon that did not answer) */
  implementations: Hex[];
}

/** EIP-1967 slots are keccak256(label) − 1, so no known preimage can collide with them. */
function eip1967Slot(label: string): Hex {
  return toHex(BigInt(keccak256(toHex(label))) - 1n, { size: 32 });
}

export const EIP1967_IMPLEMENTATION_SLOT = eip1967Slot('eip1967.proxy.implementation');
export const EIP1967_BEACON_SLOT = eip1967Slot('eip1967.proxy.beacon');
export const EIP1822_PROXIABLE_SLOT = keccak256(toHex('PROXIABLE'));
const BEACON_IMPLEMENTATION_SELECTOR: Hex = '0x5c60da1b'; // implementation()

const MINIMAL_PROXY = /^0x363d3d373d3d3d363d73([0-9a-f]{40})5af43d82803e903d91602b57fd5bf3$/;
const DELEGATION_DESIGNATOR = /^0xef0100([0-9a-f]{40})$/;

/** EIP-1167: the implementation inside a minimal proxy's runtime code, or null. */
export function minimalProxyImplementation(code: Hex): Hex | null {
  const match = MINIMAL_PROXY.exec(code.toLowerCase());
  return match?.[1] ? `0x${match[1]}` : null;
}

/** EIP-7702: the delegate of an account whose code is a delegation designator, or null. */
export function delegationTarget(code: Hex): Hex | null {
  const match = DELEGATION_DESIGNATOR.exec(code.toLowerCase());
  return match?.[1] ? `0x${match[1]}` : null;
}

/** An address stored in a slot; null when the slot is empty or holds something else. */
function slotAddress(word: Hex | null): Hex | null {
  if (word === null || !/^0x[0-9a-fA-F]+$/.test(word)) return null;
  // Storage reads come back as one word (some nodes drop leading zeros); call results may be longer.
  const first = word.length >= 66 ? (word.slice(0, 66) as Hex) : toHex(BigInt(word), { size: 32 });
  const address = wordToAddress(first);
  return address === null || address === ZERO_ADDRESS ? null : address;
}

export interface DetectProxiesOptions {
  block?: BlockRef;
  signal?: AbortSignal;
  /** addresses whose requests are in flight together */
  addressesPerRound?: number;
}

const NOT_A_CONTRACT: ProxyInfo = { isContract: false, proxyType: null, implementations: [] };

function byBytecode(code: Hex): ProxyInfo | null {
  if (hexByteLength(code) === 0) return NOT_A_CONTRACT;
  const delegate = delegationTarget(code);
  if (delegate) return { isContract: true, proxyType: 'eip7702', implementations: [delegate] };
  const clone = minimalProxyImplementation(code);
  if (clone) return { isContract: true, proxyType: 'eip1167', implementations: [clone] };
  return null;
}

export async function detectProxies(
  rpc: RpcClient,
  addresses: readonly string[],
  options: DetectProxiesOptions = {},
): Promise<Map<Hex, ProxyInfo>> {
  const block = options.block ?? 'latest';
  const requestOptions = options.signal ? { signal: options.signal } : {};
  const perRound = options.addressesPerRound ?? 200;
  const unique = [...new Set(addresses.map(lowerHex))];

  const codes = await mapInRounds(unique, perRound, (address) => rpc.getCode(address, block, requestOptions));
  const result = new Map<Hex, ProxyInfo>();
  const undecided: Hex[] = [];
  unique.forEach((address, i) => {
    const info = byBytecode(codes[i] ?? '0x');
    if (info) result.set(address, info);
    else undecided.push(address);
  });

  const slots = await mapInRounds(undecided, perRound, (address) =>
    Promise.all(
      [EIP1967_IMPLEMENTATION_SLOT, EIP1967_BEACON_SLOT, EIP1822_PROXIABLE_SLOT].map((slot) =>
        rpc.getStorageAt(address, slot, block, requestOptions),
      ),
    ),
  );
  const beacons: [Hex, Hex][] = [];
  undecided.forEach((address, i) => {
    const [implementationWord, beaconWord, proxiableWord] = slots[i] ?? [];
    const implementation = slotAddress(implementationWord ?? null);
    const beacon = slotAddress(beaconWord ?? null);
    const proxiable = slotAddress(proxiableWord ?? null);
    if (implementation) result.set(address, { isContract: true, proxyType: 'eip1967', implementations: [implementation] });
    else if (beacon) beacons.push([address, beacon]);
    else if (proxiable) result.set(address, { isContract: true, proxyType: 'eip1822', implementations: [proxiable] });
    else result.set(address, { isContract: true, proxyType: null, implementations: [] });
  });

  const beaconImplementations = await mapInRounds(beacons, perRound, async ([, beacon]) =>
    slotAddress(await callOrNull(rpc, beacon, BEACON_IMPLEMENTATION_SELECTOR, block, requestOptions)),
  );
  beacons.forEach(([address], i) => {
    const implementation = beaconImplementations[i] ?? null;
    result.set(address, { isContract: true, proxyType: 'eip1967_beacon', implementations: implementation ? [implementation] : [] });
  });

  return new Map(unique.map((address) => [address, result.get(address) ?? NOT_A_CONTRACT]));
}
