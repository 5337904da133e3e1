import { Type, type Static } from '@sinclair/typebox';
import { Nullable } from './common.js';
import { AddressObject } from './address.js';
import { TokenObject } from './tokens.js';

const unknown = (what: string) => ({ description: `${what}: not indexed here, always null` });

/**
 * The reference's address object as `GET /addresses/{hash}` sends it: the address object every
 * page carries (one definition, schemas/address.ts) plus what the address page reads. Values we
 * index are real; the rest are null rather than a made-up false or 0.
 */
export const AddressDetailsObject = Type.Object(
  {
    ...AddressObject.properties,
    block_number_balance_updated_at: Nullable(Type.Integer(unknown('native balances'))),
    coin_balance: Nullable(Type.String(unknown('native balance (wei)'))),
    creation_transaction_hash: Nullable(Type.String(unknown('transactions'))),
    creator_address_hash: Nullable(Type.String(unknown('transactions'))),
    exchange_rate: Nullable(Type.String(unknown('prices'))),
    has_beacon_chain_withdrawals: Nullable(Type.Boolean(unknown('withdrawals per address'))),
    has_logs: Nullable(Type.Boolean(unknown('logs per address'))),
    has_token_transfers: Nullable(
      Type.Boolean({ description: 'true when the address holds or is a token with holders (so transfers happened); otherwise null: transfers are not stored' }),
    ),
    has_tokens: Type.Boolean({ description: 'holds a positive balance of an indexed token' }),
    has_validated_blocks: Type.Boolean({ description: 'mined at least one indexed block (blocks-validated is not empty)' }),
    token: Nullable({ ...TokenObject, description: 'the token object when the address is an indexed token' }),
    watchlist_address_id: Nullable(Type.Integer(unknown('watchlists'))),
  },
  { additionalProperties: false },
);
export type AddressDetailsObject = Static<typeof AddressDetailsObject>;

const tabCount = (what: string) => Nullable(Type.Integer({ minimum: 0, maximum: 51, description: what }));

/** The counts behind the address page's tabs, cut at 51 as the reference's are ("50+"). */
export const AddressTabsCounters = Type.Object(
  {
    internal_transactions_count: tabCount('null: not stored per address'),
    logs_count: tabCount('null: not stored per address'),
    token_balances_count: tabCount('positive balances of indexed tokens, at most 51'),
    token_transfers_count: tabCount('null: transfers are not stored'),
    transactions_count: tabCount('null: transactions are not stored per address'),
    validations_count: tabCount('blocks mined that we hold, at most 51'),
    withdrawals_count: tabCount('null: not stored per address'),
  },
  { additionalProperties: false },
);
export type AddressTabsCounters = Static<typeof AddressTabsCounters>;

/** The address's counters, uncapped, integers as strings as the reference sends them. */
export const AddressCounters = Type.Object(
  {
    transactions_count: Nullable(Type.String(unknown('transactions per address'))),
    token_transfers_count: Nullable(Type.String(unknown('token transfers'))),
    gas_usage_count: Nullable(Type.String(unknown('gas per address'))),
    validations_count: Type.String({ description: 'every block mined by the address that we hold' }),
  },
  { additionalProperties: false },
);
export type AddressCounters = Static<typeof AddressCounters>;
