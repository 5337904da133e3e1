// Pure formatting on bigints: balances reach 2^256, far past what a float can hold exactly.

function group(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/**
 * `value / 10^decimals` as a decimal string with thousands grouped and trailing zeros dropped.
 * Exact unless `maxFraction` is given, in which case the fraction is rounded half-up and a
 * positive amount that rounds to zero reads `<0.000001` rather than a misleading `0`.
 */
export function formatUnits(value: bigint, decimals: number | null, maxFraction?: number): string {
  const negative = value < 0n;
  let v = negative ? -value : value;
  let places = decimals ?? 0;
  if (maxFraction !== undefined && maxFraction < places) {
    const cut = 10n ** BigInt(places - maxFraction);
    const rounded = (v + cut / 2n) / cut;
    if (rounded === 0n && v > 0n) return `${negative ? '>-' : '<'}0.${'0'.repeat(Math.max(maxFraction - 1, 0))}1`;
    v = rounded;
    places = maxFraction;
  }
  const digits = v.toString().padStart(places + 1, '0');
  const whole = digits.slice(0, digits.length - places);
  const fraction = digits.slice(digits.length - places).replace(/0+$/, '');
  return `${negative ? '-' : ''}${group(whole)}${fraction ? `.${fraction}` : ''}`;
}

/** Hundredths of a percent, rounded half-up; null when the total is unknown or zero. */
export function shareHundredths(part: bigint, total: bigint | null): bigint | null {
  if (total === null || total <= 0n) return null;
  return (part * 20_000n + total) / (2n * total);
}

/** `12.34%`; a positive share too small to show reads `<0.01%`. */
export function formatShare(part: bigint, total: bigint | null): string {
  const h = shareHundredths(part, total);
  if (h === null) return '—';
  if (h === 0n && part > 0n) return '<0.01%';
  return `${h / 100n}.${(h % 100n).toString().padStart(2, '0')}%`;
}

export function formatInteger(value: bigint | number): string {
  return group(BigInt(value).toString());
}

const UNITS: [number, string][] = [
  [365 * 86_400, 'y'],
  [86_400, 'd'],
  [3_600, 'h'],
  [60, 'min'],
];

/** Coarse relative age, e.g. `3 h ago`. */
export function formatAge(iso: string, nowMs: number): string {
  const seconds = Math.max(0, Math.floor((nowMs - Date.parse(iso)) / 1000));
  for (const [size, unit] of UNITS) {
    if (seconds >= size) return `${Math.floor(seconds / size)} ${unit} ago`;
  }
  return `${seconds} s ago`;
}

export const HASH_RE = /^0x[0-9a-fA-F]{40}$/;
