import { describe, expect, it } from 'vitest';
import type { Hex } from '../db/rows.js';
import { RecentAddresses } from './recent-addresses.js';

const address = (i: number): Hex => `0x${i.toString(16).padStart(40, '0')}`;

describe('RecentAddresses', () => {
  it('passes on only the addresses not remembered as written', () => {
    const recent = new RecentAddresses();
    expect(recent.unseen([address(1), address(2)])).toEqual([address(1), address(2)]);
    recent.remember([address(1)]);
    expect(recent.unseen(new Set([address(1), address(2), address(3)]))).toEqual([address(2), address(3)]);
  });

  it('stays bounded: the older generation is forgotten once the newer one fills', () => {
    const recent = new RecentAddresses(2);
    recent.remember([address(1), address(2)]);
    recent.remember([address(3)]); // 1 and 2 move to the older generation, still known
    expect(recent.unseen([address(1), address(2), address(3)])).toEqual([]);
    recent.remember([address(4), address(5)]); // 3 and 4 become the older generation
    expect(recent.unseen([address(1), address(2), address(3), address(4), address(5)])).toEqual([address(1), address(2)]);
  });
});
