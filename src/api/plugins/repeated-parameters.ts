import type { FastifyInstance, FastifyRequest } from 'fastify';

/** the key (auth.ts) and the restricted secret (chain-scope.ts) */
const CREDENTIALS = new Set(['apikey', 'key']);

/**
 * The reference reads a query name given more than once as its last value (Plug: "the last
 * value takes precedence"), and clients rely on it: a paging loop that appends
 * `next_page_params` to a URL already holding `items_count` sends that name twice. So on the
 * keyed routes the last value wins, before anything reads the query (the key and its limits, the
 * restricted check, the page cache's key). Not for the credentials, `apikey` and `key`: one sent
 * twice with two values is ambiguous and refused (401, 403), as before (docs/COMPATIBILITY.md).
 * The Etherscan-style routes keep their own rule: there any repeated name is refused
 * (routes/etherscan/query-names.ts).
 *
 * Must run before the auth hook: register it on the keyed scope first.
 */
export function lastValueWins(app: FastifyInstance): void {
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    if (!request.routeOptions.config?.etherscan) {
      const query = request.query as Record<string, unknown>;
      for (const name in query) {
        const value = query[name];
        if (Array.isArray(value) && !CREDENTIALS.has(name)) query[name] = value[value.length - 1];
      }
    }
    done();
  });
}
