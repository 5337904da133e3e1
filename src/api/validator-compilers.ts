import { AjvCompiler } from '@fastify/ajv-compiler';
import type { FastifyServerOptions } from 'fastify';

/**
 * The server's Ajv options (`ajv` in its Fastify options) for every part of a request but the
 * body, which is checked with the same options less type coercion. Query strings and paths
 * arrive as text, so their numbers and booleans are read from it; a JSON body states its types
 * itself, so `{"rate_limit": "5"}` or `{"name": 123}` is a 400, not a value the client did not
 * send (and a `null` is not taken for 0, "" or false).
 */
export function validatorCompilers(): NonNullable<FastifyServerOptions['schemaController']> {
  const fromPool = AjvCompiler();
  return {
    compilersFactory: {
      buildValidator: (externalSchemas, options = {}) => {
        const textual = fromPool(externalSchemas, options);
        // JTD schemas (not used here) have no coercion to turn off
        if (options.mode === 'JTD') return textual;
        const typed = fromPool(externalSchemas, { ...options, customOptions: { ...options.customOptions, coerceTypes: false } });
        return (route) => (route.httpPart === 'body' ? typed(route) : textual(route));
      },
    },
  };
}
