import { describe, expect, it } from 'vitest';
import { ensRegistryFor, MAINNET_ENS_REGISTRY } from './ens.js';

describe('which ENS registry a chain follows', () => {
  it('mainnet\'s on chain 1 by default, none elsewhere; a configured one anywhere; false turns it off', () => {
    expect(ensRegistryFor(1, null)).toBe(MAINNET_ENS_REGISTRY);
    expect(ensRegistryFor(10, null)).toBeNull();
    expect(ensRegistryFor(10, { registry: '0x00000000000000000000000000000000000000AB' })).toBe('0x00000000000000000000000000000000000000ab');
    expect(ensRegistryFor(1, false)).toBeNull();
  });
});
