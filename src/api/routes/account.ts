import { keysetPage } from '../views/keyset-page.js';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Queryable } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import {
  addAccountEntry, deleteAccountEntry, listAccountEntries, updateAccountEntry,
  type AccountEntry, type AccountKind, type WriteResult,
} from '../../db/queries/account.js';
import { checksum } from '../views/checksum.js';
import { errorResponses } from '../schemas/common.js';
import { HttpError, InvalidParameterError, notFound } from '../http-error.js';
import type { AccountIndex } from '../account/private-data.js';
import {
  ACCOUNT_LIMITS, AccountEntriesPage, AccountEntryBody, AccountEntryObject, AccountIdParams, AccountKeyQuery, AccountListQuery,
} from '../schemas/account.js';

// (no 403: the account API has no restricted addresses)
const { 403: _restricted, ...errors } = errorResponses;

const view = (e: AccountEntry) => ({ id: e.id, address_hash: checksum(e.address), name: e.name });

const RESOURCES: Array<{ path: string; kind: AccountKind; what: string }> = [
  { path: '/api/account/v2/user/tags/address', kind: 'tag', what: 'private tag' },
  { path: '/api/account/v2/user/watchlist', kind: 'watchlist', what: 'watchlist entry' },
];

/**
 * The reference's account API for private tags and the watchlist: an API key is the account
 * (request.apiKey.id is the owner). Entries apply on every chain. Each write forgets the key's
 * cached "has entries" answer, so its next page carries them (private-data.ts).
 */
export function accountRoutes(app: FastifyInstance, db: Queryable, index: AccountIndex): void {
  const config = { chainless: true };
  const bodyLimit = 4_096;
  // (keyless mode lets some requests in without a key: they have no account)
  const ownerOf = (request: FastifyRequest) => {
    if (!request.apiKey) throw new HttpError(401, 'Invalid or missing API key');
    return request.apiKey.id;
  };
  const written = (request: FastifyRequest, result: WriteResult, what: string) => {
    if (result.ok) {
      index.forget(ownerOf(request));
      return view(result.entry);
    }
    if (result.reason === 'missing') throw notFound();
    const detail =
      result.reason === 'full'
        ? `At most ${ACCOUNT_LIMITS.entriesPerKind} of them per key`
        : `This address has a ${what} of this key already`;
    throw new InvalidParameterError([{ param: 'address_hash', detail }]);
  };

  for (const { path, kind, what } of RESOURCES) {
    const tags = ['account'];
    app.get<{ Querystring: AccountListQuery }>(
      path,
      {
        config,
        schema: { summary: `This key's ${what}s, newest first`, tags, querystring: AccountListQuery, response: { 200: AccountEntriesPage, ...errors } },
      },
      async (request) => {
        const size = request.query.items_count ?? ACCOUNT_LIMITS.pageSize;
        const rows = await listAccountEntries(db, ownerOf(request), kind, request.query.id ?? null, size + 1);
        return keysetPage(rows, size, view, (last) => ({ id: last.id }));
      },
    );
    app.post<{ Body: AccountEntryBody }>(
      path,
      {
        config,
        bodyLimit,
        schema: { summary: `Add a ${what}`, tags, querystring: AccountKeyQuery, body: AccountEntryBody, response: { 200: AccountEntryObject, ...errors } },
      },
      async (request) => {
        const { address_hash, name } = request.body;
        const result = await addAccountEntry(db, ownerOf(request), kind, address_hash.toLowerCase() as Hex, name, ACCOUNT_LIMITS.entriesPerKind);
        return written(request, result, what);
      },
    );
    app.put<{ Params: AccountIdParams; Body: AccountEntryBody }>(
      `${path}/:id`,
      {
        config,
        bodyLimit,
        schema: { summary: `Change a ${what}`, tags, params: AccountIdParams, querystring: AccountKeyQuery, body: AccountEntryBody, response: { 200: AccountEntryObject, ...errors } },
      },
      async (request) => {
        const { address_hash, name } = request.body;
        const result = await updateAccountEntry(db, ownerOf(request), kind, request.params.id, address_hash.toLowerCase() as Hex, name);
        return written(request, result, what);
      },
    );
    app.delete<{ Params: AccountIdParams }>(
      `${path}/:id`,
      {
        config,
        schema: { summary: `Remove a ${what}`, tags, params: AccountIdParams, querystring: AccountKeyQuery, response: { 200: { $ref: 'Message#' }, ...errors } },
      },
      async (request) => {
        if (!(await deleteAccountEntry(db, ownerOf(request), kind, request.params.id))) throw notFound();
        index.forget(ownerOf(request));
        return { message: 'OK' };
      },
    );
  }
}
