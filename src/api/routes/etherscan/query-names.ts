import type { FastifyInstance, FastifyRequest } from 'fastify';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** an Etherscan-style route: its query names are read in any letter case */
    etherscan?: boolean;
  }
}

/**
 * That API reads its parameter names in any letter case (clients send `apiKey`, `APIKEY`,
 * `contractAddress`), so on its routes every query name is lowercased before anything reads
 * the query: the key resolver and its limits, the restricted-address check, the page cache's
 * key and the log line's redaction all see `apikey` and `contractaddress`, whatever the
 * spelling or percent-encoding on the wire. Two spellings of one name become a list, as a
 * repeated name does: a list is no valid key, address or number.
 *
 * Must run before the auth hook: register it on the keyed scope first.
 */
export function etherscanQueryNames(app: FastifyInstance): void {
  app.addHook('onRequest', (request: FastifyRequest, _reply, done) => {
    if (request.routeOptions.config?.etherscan) request.query = lowercaseNames(request.query as Record<string, unknown>);
    done();
  });
}

export function lowercaseNames(query: Record<string, unknown>): Record<string, unknown> {
  // null prototype: a parameter named __proto__ or constructor is data, not a prototype
  const out: Record<string, unknown> = Object.create(null);
  for (const name of Object.keys(query)) {
    const lower = name.toLowerCase();
    const value = query[name];
    if (!(lower in out)) out[lower] = value;
    else out[lower] = [...asList(out[lower]), ...asList(value)];
  }
  return out;
}

const asList = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);
