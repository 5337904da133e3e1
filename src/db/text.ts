/** PostgreSQL text holds any character but NUL: the pattern of every schema of text we store. */
export const STORABLE_TEXT = '^[^\\u0000]*$';
/** The same, with at least one character that is not white space: a name. */
export const STORABLE_NAME = '^[^\\u0000]*[^\\s\\u0000][^\\u0000]*$';
