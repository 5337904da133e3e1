/**
 * The block object's percentage fields (gas used, gas target, burnt fees), computed the way the
 * reference explorer does: in decimal arithmetic with 28 significant digits, rounding half up
 * after every operation (Elixir's Decimal defaults), then converted to the nearest double. Plain
 * float arithmetic differs in the last bits, and clients diff these numbers.
 *
 * They are derived from row fields at read time, so they live here as pure functions rather than
 * as stored columns; the elasticity multiplier is a per-chain setting.
 */

const PRECISION = 28;

// Powers of ten up to 10^160 (uint256 values have at most 78 digits; products of two, 156):
// a table lookup instead of `10n ** k` and of `toString()` to count digits, which were most
// of a blocks page's view time.
const POW10: bigint[] = [1n];
for (let k = 1; k <= 160; k++) POW10.push(POW10[k - 1]! * 10n);
const pow10 = (k: number): bigint => POW10[k] ?? 10n ** BigInt(k);

/** coefficient × 10^exponent */
interface Decimal {
  coef: bigint;
  exp: number;
}

function digits(value: bigint): number {
  const magnitude = value < 0n ? -value : value;
  if (magnitude >= POW10[POW10.length - 1]!) return magnitude.toString().length;
  // the smallest k with magnitude < 10^k (0 has one digit)
  let low = 1;
  let high = POW10.length - 1;
  while (low < high) {
    const mid = (low + high) >> 1;
    if (magnitude < POW10[mid]!) high = mid;
    else low = mid + 1;
  }
  return low;
}

/** Round half up (away from zero on ties) to PRECISION significant digits. */
function round(value: Decimal): Decimal {
  const excess = digits(value.coef) - PRECISION;
  if (excess <= 0) return value;
  const negative = value.coef < 0n;
  const magnitude = negative ? -value.coef : value.coef;
  const divisor = pow10(excess);
  let kept = magnitude / divisor;
  if ((magnitude % divisor) * 2n >= divisor) kept += 1n;
  // 999.. rounding up can add a digit; one more pass brings it back to PRECISION digits.
  return round({ coef: negative ? -kept : kept, exp: value.exp + excess });
}

const LIMIT = POW10[PRECISION]!;

function fromBigInt(value: bigint): Decimal {
  // gas figures and fees fit in PRECISION digits: nothing to round
  if (value < LIMIT && value > -LIMIT) return { coef: value, exp: 0 };
  return round({ coef: value, exp: 0 });
}

function divide(a: Decimal, b: Decimal): Decimal {
  if (b.coef === 0n) throw new RangeError('division by zero');
  if (a.coef === 0n) return { coef: 0n, exp: 0 };
  // Scale the dividend so the integer quotient carries more than PRECISION digits; half-up
  // rounding then depends only on the first dropped digit, which the extra digit provides.
  const shift = Math.max(0, PRECISION + 2 + digits(b.coef) - digits(a.coef));
  const quotient = (a.coef * pow10(shift)) / b.coef;
  return round({ coef: quotient, exp: a.exp - b.exp - shift });
}

function subtract(a: Decimal, b: Decimal): Decimal {
  const exp = Math.min(a.exp, b.exp);
  const left = a.coef * pow10(a.exp - exp);
  const right = b.coef * pow10(b.exp - exp);
  return round({ coef: left - right, exp });
}

function toNumber(value: Decimal): number {
  return Number(`${value.coef}e${value.exp}`);
}

const ONE = fromBigInt(1n);

/**
 * × 100 with rounding: a coefficient of at most PRECISION digits times 100 rounds back to
 * PRECISION digits by dropping two zeros, so only the exponent moves.
 */
function percent(value: Decimal): Decimal {
  return { coef: value.coef, exp: value.exp + 2 };
}

/** gas_used_percentage: gasUsed / gasLimit × 100; 0 when the gas limit is 0. */
export function gasUsedPercentage(gasUsed: bigint, gasLimit: bigint): number {
  if (gasLimit <= 0n) return 0;
  return toNumber(percent(divide(fromBigInt(gasUsed), fromBigInt(gasLimit))));
}

/**
 * gas_target_percentage: (gasUsed / (gasLimit / elasticity) − 1) × 100. A half-full block gives 0
 * with the default elasticity 2, an empty block −100. 0 when the gas limit is 0.
 */
export function gasTargetPercentage(gasUsed: bigint, gasLimit: bigint, elasticity: bigint = 2n): number {
  if (gasLimit <= 0n) return 0;
  const target = divide(fromBigInt(gasLimit), fromBigInt(elasticity));
  const ratio = divide(fromBigInt(gasUsed), target);
  return toNumber(percent(subtract(ratio, ONE)));
}

/** burnt_fees_percentage: burnt / transaction fees × 100; null when the fees are 0. */
export function burntFeesPercentage(burntFees: bigint, transactionFees: bigint): number | null {
  if (transactionFees === 0n) return null;
  return toNumber(percent(divide(fromBigInt(burntFees), fromBigInt(transactionFees))));
}
