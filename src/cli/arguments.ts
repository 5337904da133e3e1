import { InvalidArgumentError } from 'commander';
import { Type } from '@sinclair/typebox';
import { parseKind, text, type Kind } from '../config/setting.js';
import { chainId } from '../config/settings.js';
import type { Hex } from '../db/rows.js';
import { KEY_NAME_MAX_LENGTH } from '../db/queries/api-keys.js';
import { ONE_LINE_NAME } from '../db/text.js';

/** A commander argument parser from a setting kind: a bad value is commander's usage error. */
export function argument<T>(kind: Kind<T>): (value: string) => T {
  return (value) => {
    try {
      return parseKind(kind, value);
    } catch (error) {
      throw new InvalidArgumentError((error as Error).message);
    }
  };
}

export const chainIdArgument = argument(chainId);

export const keyIdArgument = argument<number>({
  schema: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, errorMessage: 'a key id (a positive integer, see `explorer keys list`)' }),
  fromText: (t) => (/^\s*\d+\s*$/.test(t) ? Number(t) : t),
  toValue: (v: number) => v,
});

export const keyNameArgument = argument(text({ maxLength: KEY_NAME_MAX_LENGTH, pattern: ONE_LINE_NAME, errorMessage: `a name of 1 to ${KEY_NAME_MAX_LENGTH} characters on one line, not only spaces` }));

/** An address, lowercased. */
export function addressArgument(value: string): Hex {
  if (!/^0x[0-9a-fA-F]{40}$/.test(value)) throw new InvalidArgumentError('expected 0x followed by 40 hex digits');
  return value.toLowerCase() as Hex;
}
