/**
 * Input limits of the keyed API (README, "Limits"). Each is far above what a real client
 * sends and far below what would let one request cost memory: a key of `explorer keys create`
 * is 36 characters, a hosted-API key 36, a page's longest value 80 digits.
 */

/** API keys: what RFC 6750 allows in a bearer token (letters, digits, `-._~+/`, trailing `=`). */
export const API_KEY_PATTERN = /^[A-Za-z0-9\-._~+/]+=*$/;
export const API_KEY_MIN_LENGTH = 8;
export const API_KEY_MAX_LENGTH = 128;
export const API_KEY_FORMAT_TEXT = `${API_KEY_MIN_LENGTH} to ${API_KEY_MAX_LENGTH} characters of A-Z a-z 0-9 - . _ ~ + / (and trailing =)`;

/** Any query parameter's value, the restricted-access secret (`key`) included. */
export const MAX_PARAMETER_LENGTH = 256;

/** A token id as decimal digits (2^256 − 1 has 78): the instance route's path and its paging value. */
export const TOKEN_ID_PATTERN = '^(0|[1-9][0-9]*)$';
export const TOKEN_ID_MAX_LENGTH = 78;

/** The v2 lists' page size: the most `items_count` may ask for, and what a page has without it (the reference's 50). */
export const PAGE_SIZE = 50;
