/** ISO 8601 UTC with six fractional digits, as the reference prints it. A leaf module: chain kinds' views import it without the block view. */
export function isoTimestamp(seconds: bigint): string {
  // toISOString ends in ".mmmZ"; the reference prints microseconds
  return `${new Date(Number(seconds) * 1000).toISOString().slice(0, -1)}000Z`;
}
