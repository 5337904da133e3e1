import type { FastifyInstance } from 'fastify';
import type { Queryable } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { addressDetails, addressTabCounts, validationsCount } from '../../db/queries/address-details.js';
import { ChainParams, KeyOnlyQuery } from '../schemas/common.js';
import { AddressCounters, AddressDetailsObject, AddressTabsCounters } from '../schemas/address-page.js';
import { addressDetailsView } from '../views/address-details.js';
import { getRoutes } from './get-route.js';
import type { RestrictedInLists } from '../plugins/chain-scope.js';

const hashOf = (params: ChainParams) => params.address_hash_param.toLowerCase() as Hex;

/**
 * The reference's address page calls: the address object, its tab counters and its counters.
 * Any well-formed address is answered (200): we index part of a chain (tokens, blocks), so an
 * address we hold nothing of is not one that does not exist. A restricted token counts among
 * an address's holdings only for a request carrying the secret, as in the Etherscan-style lists.
 */
export function addressRoutes(app: FastifyInstance, db: Queryable, restrictedInLists: RestrictedInLists): void {
  const get = getRoutes(app, { tags: ['addresses'], params: ChainParams, querystring: KeyOnlyQuery });

  get(
    '/:chain_id/api/v2/addresses/:address_hash_param',
    {
      summary: 'An address: the address object, whether it mined blocks or holds tokens, and its token object if it is a token',
      response: AddressDetailsObject,
      pageCache: true,
    },
    async (request) => addressDetailsView(await addressDetails(db, request.chain.chainId, hashOf(request.params), await restrictedInLists(request))),
  );

  get(
    '/:chain_id/api/v2/addresses/:address_hash_param/tabs-counters',
    { summary: 'Counts behind the address page\'s tabs, each at most 51 (shown as "50+")', response: AddressTabsCounters, pageCache: true },
    async (request) => {
      const counts = await addressTabCounts(db, request.chain.chainId, hashOf(request.params), await restrictedInLists(request));
      return {
        internal_transactions_count: null,
        logs_count: null,
        token_balances_count: counts.tokenBalances,
        token_transfers_count: null,
        transactions_count: null,
        validations_count: counts.validations,
        withdrawals_count: null,
      };
    },
  );

  get(
    '/:chain_id/api/v2/addresses/:address_hash_param/counters',
    { summary: 'An address\'s counters: blocks validated (all of them); null for what is not indexed', response: AddressCounters, pageCache: true },
    async (request) => ({
      transactions_count: null,
      token_transfers_count: null,
      gas_usage_count: null,
      validations_count: (await validationsCount(db, request.chain.chainId, hashOf(request.params))).toString(),
    }),
  );
}
