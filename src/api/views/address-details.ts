import type { AddressDetails } from '../../db/queries/address-details.js';
import type { AddressDetailsObject } from '../schemas/address-page.js';
import { addressView } from './address.js';
import { tokenView } from './token.js';

/** The address page's object: the shared address object plus what the page reads. */
export function addressDetailsView(d: AddressDetails): AddressDetailsObject {
  // Transfers are not stored, but a holder, or a token that has holders, had some.
  const transfersSeen = d.hasTokens || (d.token !== null && d.token.holderCount > 0n);
  return {
    ...addressView(d.address),
    block_number_balance_updated_at: null,
    coin_balance: null,
    creation_transaction_hash: null,
    creator_address_hash: null,
    exchange_rate: null,
    has_beacon_chain_withdrawals: null,
    has_logs: null,
    has_token_transfers: transfersSeen ? true : null,
    has_tokens: d.hasTokens,
    has_validated_blocks: d.hasValidatedBlocks,
    token: d.token === null ? null : tokenView(d.address.hash, d.token),
    watchlist_address_id: null,
  };
}
