import { Type, type Static } from '@sinclair/typebox';
import { AuthQuery, Nullable } from './common.js';
import { BlockNumberParam } from './holders.js';

/**
 * The reference's token object, field for field (its recorded response has all thirteen): big
 * numbers and counts are strings there, so they are here; market data is always null, as no
 * price feed is indexed.
 */
export const TokenObject = Type.Object(
  {
    address: Type.String({ description: 'EIP-55 checksummed; older alias of address_hash' }),
    address_hash: Type.String({ description: 'EIP-55 checksummed' }),
    circulating_market_cap: Nullable(Type.String()),
    decimals: Nullable(Type.String({ description: 'integer as a string, as the reference sends it' })),
    exchange_rate: Nullable(Type.String()),
    holders: Type.String({ description: 'older alias of holders_count' }),
    holders_count: Type.String({ description: 'addresses with a positive balance, burn address excluded' }),
    icon_url: Nullable(Type.String()),
    name: Nullable(Type.String()),
    symbol: Nullable(Type.String()),
    total_supply: Nullable(Type.String({ description: 'in base units; null when the contract does not report it' })),
    type: Type.String({ description: 'ERC-20, ERC-721 or ERC-1155' }),
    volume_24h: Nullable(Type.String()),
  },
  { additionalProperties: false },
);
export type TokenObject = Static<typeof TokenObject>;

/** The reference's token counters; total_supply only at a past block, for an ERC-20 (ours). */
export const TokenCounters = Type.Object({
  token_holders_count: Type.String(),
  transfers_count: Nullable(
    Type.String({
      description:
        "the token's transfer events (a TransferBatch counts once; a wrapped-native token's Deposit and Withdrawal count); null when not known: at a past block, on a chain indexed from above block 0, for a token indexed before this count was kept, or after a reorg deeper than the reorg window touched it",
    }),
  ),
  total_supply: Type.Optional(Type.String({ description: 'with block_number, ERC-20 only: the sum of all balances at that block (its total supply for a standard token)' })),
});

export const TokenCountersQuery = Type.Object(
  { apikey: AuthQuery.apikey, key: AuthQuery.key, block_number: Type.Optional(BlockNumberParam) },
  { additionalProperties: false },
);
export type TokenCountersQuery = Static<typeof TokenCountersQuery>;
export type TokenCounters = Static<typeof TokenCounters>;
