import { keysetPage } from '../views/keyset-page.js';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/client.js';
import { type ApiKeyRecord, createApiKey, listApiKeys, revokeApiKey } from '../../db/queries/api-keys.js';
import { HttpError } from '../http-error.js';
import { errorResponses } from '../schemas/common.js';
import { type ApiKeyView, KeyParams, KeysPage, KEYS_PAGE_DEFAULT, KeysQuery, NewKey, NewKeyBody } from '../schemas/keys.js';

const view = (k: ApiKeyRecord): ApiKeyView => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  rate_limit: k.rateLimit,
  created_at: k.createdAt.toISOString(),
  revoked_at: k.revokedAt?.toISOString() ?? null,
});

/**
 * API keys over HTTP, for an admin key only (routes/admin.ts): what `explorer keys` does, for a
 * service whose embedded database no second process may open while it runs. A revoked key is
 * refused by every server within 5 s, as after `explorer keys revoke`.
 */
export async function adminKeysRoutes(admin: FastifyInstance, db: Database): Promise<void> {
  admin.get<{ Querystring: KeysQuery }>(
    '/api/v2/admin/keys',
    {
      schema: {
        summary: 'API keys (admin key only)',
        description: 'In id order, revoked ones included; pass next_page_params back as query parameters.',
        tags: ['admin'],
        querystring: KeysQuery,
        response: { 200: KeysPage, ...errorResponses },
      },
    },
    async (request) => {
      const size = request.query.items_count ?? KEYS_PAGE_DEFAULT;
      const rows = await listApiKeys(db, { afterId: request.query.after_id, limit: size + 1 });
      return keysetPage(rows, size, view, (last) => ({ after_id: last.id }));
    },
  );

  admin.post<{ Body: NewKeyBody }>(
    '/api/v2/admin/keys',
    {
      schema: {
        summary: 'Create an API key (admin key only)',
        description: 'The answer holds the key; it is stored hashed and never shown again.',
        tags: ['admin'],
        body: NewKeyBody,
        response: { 201: NewKey, ...errorResponses },
      },
    },
    async (request, reply) => {
      const { key, record } = await createApiKey(db, request.body.name, request.body.rate_limit ?? null);
      // the one answer that carries a secret: no proxy or browser may keep it
      return reply.code(201).header('cache-control', 'no-store').send({ ...view(record), key });
    },
  );

  admin.delete<{ Params: KeyParams }>(
    '/api/v2/admin/keys/:id',
    {
      schema: {
        summary: 'Revoke an API key (admin key only)',
        description: 'Every server refuses it within 5 s.',
        tags: ['admin'],
        params: KeyParams,
        response: { 200: { $ref: 'Message#' }, ...errorResponses },
      },
    },
    async (request) => {
      if (!(await revokeApiKey(db, request.params.id))) throw new HttpError(404, `No active key with id ${request.params.id}`);
      return { message: 'Revoked: servers stop accepting it within 5 s' };
    },
  );
}
