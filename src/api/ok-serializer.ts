import fastJson from 'fast-json-stringify';
import type { FastifyInstance, FastifySerializerCompiler } from 'fastify';

/**
 * A route's serializers when its 200 answer is written by a serializer of its own (a page that
 * splices JSON the database keeps, views/address-json.ts): that one for 200, and for every other
 * status its schema's, compiled as Fastify would (fast-json-stringify, the server's shared
 * schemas).
 */
export function okSerializer<T>(app: FastifyInstance, ok: (payload: T) => string): FastifySerializerCompiler<unknown> {
  return ({ schema, httpStatus }) =>
    httpStatus === '200' ? (ok as (payload: unknown) => string) : fastJson(schema as fastJson.AnySchema, { schema: app.getSchemas() as Record<string, fastJson.Schema> });
}
