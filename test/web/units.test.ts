import { describe, expect, it } from 'vitest';
import { formatUnits as viemFormatUnits } from 'viem';
import { formatAge, formatShare, formatUnits, shareHundredths } from '../../web/src/format.js';
import { Pager } from '../../web/src/pager.js';
import { cumulativeShares, topShares } from '../../web/src/concentration.js';

describe('web page formatting', () => {
  it('formatUnits is exact at any size and agrees with viem once grouping is removed', () => {
    const cases: [bigint, number][] = [
      [0n, 6], [1n, 6], [1_000_000n, 6], [123_456_789n, 6], [2n ** 256n - 1n, 18], [10n ** 30n, 0], [5n, 0], [100n, 2],
    ];
    for (const [value, decimals] of cases) {
      expect(formatUnits(value, decimals).replaceAll(',', '')).toBe(viemFormatUnits(value, decimals));
    }
    expect(formatUnits(1_234_567_890_123n, 6)).toBe('1,234,567.890123');
    expect(formatUnits(42n, null)).toBe('42');
  });

  it('formatUnits with a fraction limit rounds half-up and never shows a positive amount as 0', () => {
    expect(formatUnits(1_234_567_890_123_456_789n, 18, 6)).toBe('1.234568');
    expect(formatUnits(999_999_500_000_000_000n, 18, 6)).toBe('1');
    expect(formatUnits(400_000_000_000n, 18, 6)).toBe('<0.000001');
    expect(formatUnits(0n, 18, 6)).toBe('0');
  });

  it('shares: hundredths of a percent, half-up; tiny but positive reads <0.01%', () => {
    expect(formatShare(1n, 3n)).toBe('33.33%');
    expect(formatShare(2n, 3n)).toBe('66.67%');
    expect(formatShare(1n, 1n)).toBe('100.00%');
    expect(formatShare(1n, 10n ** 9n)).toBe('<0.01%');
    expect(formatShare(0n, 10n)).toBe('0.00%');
    expect(formatShare(1n, null)).toBe('—');
    expect(shareHundredths(1n, 0n)).toBeNull();
  });

  it('ages', () => {
    const now = Date.parse('2024-01-02T00:00:00Z');
    expect(formatAge('2024-01-01T23:59:30.000000Z', now)).toBe('30 s ago');
    expect(formatAge('2024-01-01T23:00:00.000000Z', now)).toBe('1 h ago');
    expect(formatAge('2023-12-30T00:00:00.000000Z', now)).toBe('3 d ago');
    expect(formatAge('2021-01-01T00:00:00.000000Z', now)).toBe('3 y ago');
  });
});

describe('pager', () => {
  it('keeps the cursors that opened each page, back to the first (null)', () => {
    const p = new Pager<{ n: number }>();
    expect([p.index, p.current, p.hasPrevious]).toEqual([0, null, false]);
    p.forward({ n: 1 });
    p.forward({ n: 2 });
    expect([p.index, p.current, p.previous]).toEqual([2, { n: 2 }, { n: 1 }]);
    p.back();
    expect([p.index, p.current, p.previous]).toEqual([1, { n: 1 }, null]);
    p.back();
    p.back();
    expect([p.index, p.current, p.hasPrevious]).toEqual([0, null, false]);
  });
});

describe('concentration', () => {
  it('top 1/10/100 shares only for tiers fully loaded; cumulative curve in percent', () => {
    const values = Array.from({ length: 12 }, (_, i) => BigInt(12 - i));
    const supply = 100n;
    expect(topShares(values, supply)).toEqual([
      { count: 1, hundredths: 1200n },
      { count: 10, hundredths: 7500n },
    ]);
    expect(topShares(values, null)).toEqual([]);
    expect(cumulativeShares(values, supply).slice(0, 3)).toEqual([12, 23, 33]);
    expect(cumulativeShares(values, 0n)).toEqual([]);
  });
});
