import { Type } from '@sinclair/typebox';
import { ADDRESS_SETTING, type Kind } from './setting.js';
import type { Hex } from '../db/rows.js';

/** ENS's registry on Ethereum mainnet (the "with fallback" one, since 2020). */
export const MAINNET_ENS_REGISTRY = '0x00000000000c2e074ec69a0dfb2997ba6c7d2e1e' as Hex;

/** The per-chain `ens` setting: `{"registry": "0x…"}`, `false` to turn it off, null for the default. */
export type EnsSetting = { registry: string } | false | null;

export const ensKind: Kind<EnsSetting> = {
  schema: Type.Union([
    Type.Object({ registry: ADDRESS_SETTING }, { additionalProperties: false }),
    Type.Literal(false),
    Type.Null(),
  ]),
  fromText: (t: string) => JSON.parse(t) as EnsSetting,
  toValue: (v: EnsSetting) => v,
};

/** The registry whose names this chain follows, or null: the configured one, else mainnet's on chain 1. */
export function ensRegistryFor(chainId: number, setting: EnsSetting | undefined): Hex | null {
  if (setting === false) return null;
  if (setting) return setting.registry.toLowerCase() as Hex;
  return chainId === 1 ? MAINNET_ENS_REGISTRY : null;
}
