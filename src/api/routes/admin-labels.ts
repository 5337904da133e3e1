import { keysetPage } from '../views/keyset-page.js';
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../db/client.js';
import type { Hex } from '../../db/rows.js';
import { listLabels } from '../../db/queries/labels.js';
import { LabelEntry, toEntry } from '../../labels/entry.js';
import { LabelFileError, parseLabels } from '../../labels/parse.js';
import { importLabels, removeLabelsOf } from '../../labels/store.js';
import { HttpError, InvalidParameterError } from '../http-error.js';
import { ImportedBody, LabelParams, LabelsPage, LabelsQuery } from '../schemas/labels.js';
import { Type } from '@sinclair/typebox';
import { errorResponses } from '../schemas/common.js';

const DEFAULT_PAGE = 100;
/** an admin request body: a labels file sent whole */
const BODY_LIMIT = 16 * 2 ** 20;

const adminErrors = errorResponses;

/**
 * The operator's labels over HTTP, for an admin key only (routes/admin.ts): the same entries,
 * checks and transaction as `explorer labels import|list|remove`. A body is read as text and
 * parsed here, so a bad entry is answered with its line like the CLI's. Register it in a scope
 * of its own: it replaces the scope's body parsers.
 */
export async function adminLabelsRoutes(admin: FastifyInstance, db: Database): Promise<void> {
  admin.removeAllContentTypeParsers();
  for (const type of ['application/json', 'text/csv']) {
    admin.addContentTypeParser(type, { parseAs: 'string', bodyLimit: BODY_LIMIT }, (_request, body, done) => done(null, body));
  }

  admin.get<{ Querystring: LabelsQuery }>(
    '/api/v2/admin/labels',
    {
      schema: {
        summary: 'Operator labels (admin key only)',
        description: 'In (chain_id, address) order; pass next_page_params back as query parameters.',
        tags: ['admin'],
        querystring: LabelsQuery,
        response: { 200: LabelsPage, ...adminErrors },
      },
    },
    async (request) => {
      const q = request.query;
      const size = q.items_count ?? DEFAULT_PAGE;
      const after = q.after_chain_id !== undefined && q.after_address !== undefined ? { chainId: q.after_chain_id, address: q.after_address.toLowerCase() as Hex } : undefined;
      const rows = await listLabels(db, {
        chainId: q.chain_id,
        address: q.address?.toLowerCase() as Hex | undefined,
        after,
        limit: size + 1,
      });
      return keysetPage(rows, size, toEntry, (last) => ({ after_chain_id: last.chainId, after_address: last.address }));
    },
  );

  admin.post(
    '/api/v2/admin/labels',
    {
      bodyLimit: BODY_LIMIT,
      schema: {
        summary: 'Import labels (admin key only)',
        description:
          'The body is a labels file: a JSON array of entries (application/json) or CSV (text/csv), README "Labels". Each entry replaces what its address had; a bad entry rejects the whole body (422, with its line) and nothing is applied.',
        tags: ['admin'],
        body: Type.Array(LabelEntry),
        response: { 200: ImportedBody, ...adminErrors },
      },
      // the body is text until parseLabels has checked it (the schema above documents it)
      validatorCompiler: ({ httpPart }) => (httpPart === 'body' ? () => true : undefined) as never,
    },
    async (request) => {
      const csv = (request.headers['content-type'] ?? '').startsWith('text/csv');
      if (typeof request.body !== 'string') throw new HttpError(415, 'Send a JSON array (application/json) or CSV (text/csv)');
      let labels;
      try {
        labels = parseLabels(request.body, csv ? 'csv' : 'json');
      } catch (error) {
        if (error instanceof LabelFileError) throw new InvalidParameterError([{ param: 'body', detail: error.message }]);
        throw error;
      }
      await importLabels(db, labels);
      return { imported: labels.length };
    },
  );

  admin.delete<{ Params: LabelParams }>(
    '/api/v2/admin/labels/:chain_id/:address',
    {
      schema: {
        summary: 'Remove a label (admin key only)',
        tags: ['admin'],
        params: LabelParams,
        response: { 200: { $ref: 'Message#' }, ...adminErrors },
      },
    },
    async (request) => {
      const removed = await removeLabelsOf(db, [{ chainId: request.params.chain_id, address: request.params.address.toLowerCase() as Hex }]);
      if (removed === 0) throw new HttpError(404, 'No such label');
      return { message: 'OK' };
    },
  );
}
