/** PostgreSQL text holds any character but NUL: the pattern of every schema of text we store. */
export const STORABLE_TEXT = '^[^\\u0000]*$';
/**
 * A name shown on one line among others (an API key's, in `explorer keys list`'s tab-separated
 * rows): no control characters at all, so a name cannot break the line or forge a column.
 */
export const ONE_LINE_NAME = '^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$';
/** Control characters made visible (`\\u000a`): a key name stored before ONE_LINE_NAME held, printed on one line. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
export const oneLine = (text: string) => text.replace(/[\u0000-\u001f\u007f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
