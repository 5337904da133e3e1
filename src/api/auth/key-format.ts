import { API_KEY_MAX_LENGTH, API_KEY_MIN_LENGTH, API_KEY_PATTERN } from '../limits.js';

/**
 * Whether a presented key can be one of ours at all. Checked before anything else is done with
 * it (no hash, no cache, no database), so a malformed or 15 KB key costs a length compare.
 */
export function isWellFormedKey(key: string): boolean {
  return key.length >= API_KEY_MIN_LENGTH && key.length <= API_KEY_MAX_LENGTH && API_KEY_PATTERN.test(key);
}
