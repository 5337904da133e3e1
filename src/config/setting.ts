import { Type, type TSchema } from '@sinclair/typebox';
import { Value, ValueErrorType } from '@sinclair/typebox/value';
import { ADDRESS_PATTERN } from '../evm/hex.js';

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Which commands take a setting's flag: every command, those that serve, those that index. */
export type FlagScope = 'all' | 'server' | 'indexer';

/** How a value is written in the config file and as text, and what the code gets from it. */
export interface Kind<T> {
  /** the value's shape in the config file; text is converted to this shape, then checked */
  readonly schema: TSchema;
  /** flag or environment text → the file's shape (checked afterwards) */
  readonly fromText: (text: string) => unknown;
  /** a checked value → what the code uses */
  readonly toValue: (checked: never) => T;
}

/**
 * One setting, defined once: the file key, flag, environment variable, default, validation and
 * help all come from here. The CLI's options, the precedence (flag > environment > config file
 * > default) and README's table are derived from these definitions.
 */
export interface Setting<T> extends Kind<T> {
  /** the key in the config file (per-chain settings: also in each entry of `chains`) */
  readonly key: string;
  /** e.g. `--port <port>`; no default is ever given to the CLI, so it never hides the others */
  readonly flag?: string;
  readonly flagScope?: FlagScope;
  /** a repeated flag adds to the list instead of replacing it */
  readonly repeatable?: boolean;
  readonly env?: string;
  /** environment text → the file's shape, when it differs from a flag's text */
  readonly fromEnv?: (text: string) => unknown;
  readonly default: T;
  /** the default as README and --help show it, when the value itself does not say it */
  readonly defaultText?: string;
  readonly help: string;
  /** never echoed in an error message */
  readonly secret?: boolean;
  /** how an error message may echo the text given (its secrets taken out), when not `secret` */
  readonly shown?: (text: string) => string;
}

/** A setting's text as an error message may echo it: not at all when secret, else as `shown` makes it. */
export function shownText(s: Setting<unknown>, text: string): string | null {
  if (s.secret) return null;
  return s.shown ? s.shown(text) : text;
}

export const setting = <T>(definition: Setting<T>): Setting<T> => definition;

export type SettingValue<S> = S extends Setting<infer T> ? T : never;
export type Values<Group> = { -readonly [K in keyof Group]: SettingValue<Group[K]> };

/** Schemas may carry an `errorMessage`: what is expected, in words, instead of TypeBox's text. */
const expected = (schema: TSchema, fallback: string): string => (schema as { errorMessage?: string }).errorMessage ?? fallback;

/** Closest of `known` to a mistyped key, for "did you mean". */
function closest(key: string, known: readonly string[]): string | null {
  const distance = (a: string, b: string) => {
    const row = Array.from({ length: b.length + 1 }, (_, j) => j);
    for (let i = 1; i <= a.length; i++) {
      let diagonal = row[0]!;
      row[0] = i;
      for (let j = 1; j <= b.length; j++) {
        const above = row[j]!;
        row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, diagonal + (a[i - 1]!.toLowerCase() === b[j - 1]!.toLowerCase() ? 0 : 1));
        diagonal = above;
      }
    }
    return row[b.length]!;
  };
  const best = known.map((k) => ({ k, d: distance(key, k) })).sort((x, y) => x.d - y.d)[0];
  return best && best.d <= Math.max(2, Math.floor(key.length / 4)) ? best.k : null;
}

/**
 * The first problem of `value` against `schema`, in words: `<path>: expected …`, or
 * `<path>: unknown key` (with the closest known one). Null when the value is valid.
 */
export function problem(schema: TSchema, value: unknown, options: { secret?: boolean | ((path: string) => boolean) } = {}): string | null {
  // An unknown key comes first: a misspelled key is usually why a required one is missing too
  // ("parentRpcUrl" for "parentRpcUrls"), and only the unknown key's message says so.
  let error;
  let seen = 0;
  for (const e of Value.Errors(schema, value)) {
    error ??= e;
    if (e.type === ValueErrorType.ObjectAdditionalProperties) {
      error = e;
      break;
    }
    if (++seen === 100) break;
  }
  if (!error) return null;
  const path = error.path.replace(/^\//, '');
  if (error.type === ValueErrorType.ObjectAdditionalProperties) {
    const properties = Object.keys(findObject(schema, error.path) ?? {});
    const key = path.split('/').pop()!;
    const suggestion = closest(key, properties);
    return `${path}: unknown key${suggestion ? ` (did you mean ${suggestion}?)` : ''}`;
  }
  const secret = typeof options.secret === 'function' ? options.secret(error.path) : (options.secret ?? false);
  const shown = secret || error.value === undefined || typeof error.value === 'object' ? '' : ` (got ${JSON.stringify(error.value)})`;
  return `${path ? `${path}: ` : ''}expected ${expected(error.schema, error.message.replace(/^Expected /, '').toLowerCase())}${shown}`;
}

/** The properties of the object schema that holds `pointer`'s last segment. */
function findObject(schema: TSchema, pointer: string): Record<string, unknown> | undefined {
  let node: TSchema | undefined = schema;
  const segments = pointer.split('/').slice(1, -1);
  for (const segment of segments) {
    if (node === undefined) return undefined;
    if (node.type === 'array') node = node.items as TSchema;
    else node = (node.properties as Record<string, TSchema> | undefined)?.[segment];
  }
  return node?.properties as Record<string, unknown> | undefined;
}

/** Text → value, or a ConfigError saying what was expected (the caller shows the text, if it may). */
export function parseKind<T>(kind: Kind<T>, text: string, fromText = kind.fromText): T {
  const shaped = fromText(text);
  const why = problem(kind.schema, shaped, { secret: true });
  if (why !== null) throw new ConfigError(why);
  return kind.toValue(shaped as never);
}

/** Text from a flag or the environment → the setting's value. */
export function parseText<T>(s: Setting<T>, text: string, source: 'flag' | 'env'): T {
  return parseKind(s, text, source === 'env' && s.fromEnv ? s.fromEnv : s.fromText);
}

/** The JSON file's shape of an optional setting. */
export const optional = <T>(kind: Kind<T>): Kind<T | null> => kind as Kind<T | null>;

export const listFromText = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const INTEGER_TEXT = /^\s*-?\d+\s*$/;

export function integer(min: number, max?: number): Kind<number> {
  return {
    schema: Type.Integer({
      minimum: min,
      ...(max === undefined ? {} : { maximum: max }),
      errorMessage: max === undefined ? `an integer ≥ ${min}` : `an integer from ${min} to ${max}`,
    }),
    fromText: (text) => (INTEGER_TEXT.test(text) ? Number(text) : text),
    toValue: (v: number) => v,
  };
}

/** 0 (the feature off) or an integer from `min` to `max`: for durations below which a feature cannot work. */
export function integerOrOff(min: number, max: number): Kind<number> {
  return {
    ...integer(min, max),
    schema: Type.Union([Type.Literal(0), Type.Integer({ minimum: min, maximum: max })], { errorMessage: `0 (off) or an integer from ${min} to ${max}` }),
  };
}

/** A block number: a JSON number, or a decimal string for heights past 2^53. */
export const blockNumber: Kind<bigint> = {
  schema: Type.Union([Type.Integer({ minimum: 0 }), Type.String({ pattern: '^\\d{1,30}$' })], {
    errorMessage: 'a block number (a non-negative integer)',
  }),
  fromText: (text) => text.trim(),
  toValue: (v: number | string) => BigInt(v),
};

export function text(options: { pattern?: string; errorMessage?: string; maxLength?: number } = {}): Kind<string> {
  return {
    schema: Type.String({
      minLength: 1,
      maxLength: options.maxLength ?? 4_096,
      ...(options.pattern ? { pattern: options.pattern } : {}),
      errorMessage: options.errorMessage ?? (options.maxLength === undefined ? 'a non-empty text' : `a non-empty text of at most ${options.maxLength} characters`),
    }),
    fromText: (t) => t,
    toValue: (v: string) => v,
  };
}

export function choice<const C extends string>(choices: readonly C[]): Kind<C> {
  return {
    schema: Type.Union(
      choices.map((c) => Type.Literal(c)),
      { errorMessage: `one of ${choices.join(', ')}` },
    ),
    fromText: (t) => t.trim(),
    toValue: (v: C) => v,
  };
}

/** A setting's address (any case), with the message a wrong one gets. */
export const ADDRESS_SETTING = Type.String({ pattern: ADDRESS_PATTERN, errorMessage: 'an address (0x and 40 hex digits)' });

/** A node's JSON-RPC URL (a chain's `rpcUrls`, an Arbitrum chain's `parentRpcUrls`). */
export const RPC_URL = Type.String({ pattern: '^(https?|wss?)://[^\\s]+$', maxLength: 4_096, errorMessage: 'an http(s) or ws(s) URL' });

/** Addresses, lower-cased: comma-separated as text, a JSON array in the file. */
export const addressList: Kind<`0x${string}`[]> = {
  schema: Type.Array(ADDRESS_SETTING, {
    maxItems: 100_000,
  }),
  fromText: listFromText,
  toValue: (v: string[]) => v.map((a) => a.toLowerCase() as `0x${string}`),
};

export const textList: Kind<string[]> = {
  schema: Type.Array(Type.String({ minLength: 1, maxLength: 4_096, errorMessage: 'a non-empty text' }), { maxItems: 100_000 }),
  fromText: listFromText,
  toValue: (v: string[]) => [...v],
};
