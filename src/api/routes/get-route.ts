import type { Static, TSchema } from '@sinclair/typebox';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { errorResponses } from '../schemas/common.js';

/** What a group of routes shares: the OpenAPI tag, the path parameters and the query. */
export interface RouteGroup<P extends TSchema, Q extends TSchema> {
  tags: string[];
  params: P;
  querystring: Q;
}

/** One route of a group: its summary and 200 body schema; `pageCache` lets the page cache serve it. */
export interface RouteSchema<R extends TSchema> {
  summary: string;
  description?: string;
  response: R;
  /** the error answers, where the route's differ from every data route's (`errorResponses`) */
  errors?: Readonly<Record<number, unknown>>;
  pageCache?: boolean;
}

export type GroupRequest<P extends TSchema, Q extends TSchema> = FastifyRequest<{ Params: Static<P>; Querystring: Static<Q> }>;

/**
 * A registrar of GET routes for one group: each route is its (schema, handler), the request typed
 * from the group's TypeBox schemas and the handler's answer from the 200 schema, as a type
 * provider would, and the error answers every data route shares added once here. The schema
 * object keeps the key order the routes were written with (tags, params, querystring, summary,
 * description, response), so the OpenAPI document is unchanged.
 */
export function getRoutes<P extends TSchema, Q extends TSchema>(app: FastifyInstance, group: RouteGroup<P, Q>) {
  return <R extends TSchema>(
    url: string,
    route: RouteSchema<R>,
    handler: (request: GroupRequest<P, Q>) => Promise<Static<R>> | Static<R>,
  ): void => {
    const schema = {
      ...group,
      summary: route.summary,
      ...(route.description === undefined ? {} : { description: route.description }),
      response: { 200: route.response, ...(route.errors ?? errorResponses) },
    };
    app.get<{ Params: Static<P>; Querystring: Static<Q> }>(
      url,
      route.pageCache ? { config: { pageCache: true }, schema } : { schema },
      async (request) => handler(request),
    );
  };
}
