import { randomUUID } from 'node:crypto';
import Fastify, { LogController, type FastifyBaseLogger, type FastifyInstance, type FastifyReply } from 'fastify';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { Redis } from 'ioredis';
import { Registry as MetricsRegistry } from 'prom-client';
import { metricsText, withProcessMetrics } from './metrics-server.js';
import { requestLog } from './request-log.js';
import { requestMetrics } from './request-metrics.js';
import { logThrottle } from '../log-throttle.js';
import type { Database } from '../db/client.js';
import type { ApiConfig } from '../config/config.js';
import { AddressObject } from './schemas/address.js';
import { BlockNotFoundBody, BlockObject, SingleBlockObject } from './schemas/blocks.js';
import { MessageBody, ValidationErrorBody } from './schemas/common.js';
import { BlocksValidatedPage } from './schemas/blocks.js';
import { HoldersPage } from './schemas/holders.js';
import { errorsPlugin } from './plugins/errors.js';
import { corsPlugin } from './plugins/cors.js';
import { authPlugin } from './plugins/auth.js';
import { rateLimitPlugin } from './plugins/rate-limit.js';
import { Registry } from './registry.js';
import { chainScope } from './plugins/chain-scope.js';
import { pageCache, pageCacheMetrics } from './plugins/page-cache.js';
import { validatorCompilers } from './validator-compilers.js';
import { parameterLimits } from './plugins/parameter-limits.js';
import { DOCS_CSP, securityHeaders, setSecurityHeaders } from './plugins/security-headers.js';
import { serverTimeouts } from './server-options.js';
import { holdersRoute } from './routes/holders.js';
import { instanceHoldersRoute } from './routes/instance-holders.js';
import { blocksValidatedRoute } from './routes/blocks-validated.js';
import { blocksListRoutes } from './routes/blocks-list.js';
import { blockRoute } from './routes/block.js';
import { tokenCountersRoute } from './routes/token-counters.js';
import { etherscanRoutes } from './routes/etherscan/route.js';
import { etherscanQueryNames } from './routes/etherscan/query-names.js';
import { lastValueWins } from './plugins/repeated-parameters.js';
import { healthRoute } from './routes/health.js';
import { longestLockWait } from '../db/queries/lock-waits.js';
import { tokenRoute } from './routes/token.js';
import { webRoute } from './routes/web.js';
import { addressRoutes } from './routes/address.js';
import { chainInfoRoutes } from './routes/chain-info.js';
import { adminRoutes } from './routes/admin.js';
import { accountRoutes } from './routes/account.js';
import { AccountIndex, privateAddressData } from './account/private-data.js';
import { LoggedPaths, logSerializers } from './redact.js';
import { ShutdownDrain } from './shutdown-drain.js';

export interface ServerOptions {
  db: Database;
  api: ApiConfig;
  redis?: Redis | null;
  /** a pino logger; silent when absent */
  logger?: FastifyBaseLogger;
  /** Prometheus registry served at /metrics (the indexer's series, in one-process mode) */
  metrics?: MetricsRegistry;
  /** directory of the built web page served at `/`; web/dist beside the package when absent */
  webRoot?: string;
  /** said draining by /health once the process is told to stop (`explorer serve`, `start`) */
  drain?: ShutdownDrain;
}

export async function buildServer(options: ServerOptions): Promise<FastifyInstance> {
  // Whatever logs a request or an error through this logger (Fastify included) gets the
  // redacting serializers: no key in any encoding, no raw request bytes.
  const paths = new LoggedPaths(new Set([...options.api.staticApiKeys, ...options.api.adminKeys, ...(options.api.restrictedKey === null ? [] : [options.api.restrictedKey])]));
  const logger = options.logger?.child({}, { serializers: logSerializers(paths) });
  if (options.api.publicRateLimit !== null && options.api.corsOrigins.length === 0) {
    logger?.warn('publicRateLimit is set but corsOrigins is empty: keyless mode serves requests from those origins only, so every request still needs a key');
  }
  const app = Fastify({
    ...(logger ? { loggerInstance: logger } : { logger: false }),
    ...serverTimeouts(options.api),
    // A long bad hash must reach validation (422), not be cut to a 404 by the router. Paths are
    // matched as the reference's router splits them, empty segments dropped: a trailing slash
    // or a doubled one (a base URL ending in `/`) finds the route.
    routerOptions: { maxParamLength: 2_000, ignoreTrailingSlash: true, ignoreDuplicateSlashes: true },
    // The router's own rejections (a path segment longer than that, a malformed URL) get the
    // documented bodies too: such a chain id or hash names nothing we serve.
    frameworkErrors: (error, _request, reply) => {
      const r = reply as unknown as FastifyReply;
      setSecurityHeaders(r);
      if (error.code === 'FST_ERR_MAX_PARAM_LENGTH') return r.code(404).send({ message: 'Not found' });
      return r.code(400).send({ message: 'Bad request' });
    },
    ajv: { customOptions: { removeAdditional: false, coerceTypes: true, allErrors: false } },
    schemaController: validatorCompilers(),
    // the client's address from X-Forwarded-For, past the operator's own balancers only
    ...(options.api.trustProxy.length > 0 ? { trustProxy: options.api.trustProxy } : {}),
    // unique across the readers behind one balancer, so one request is found in one log
    genReqId: () => randomUUID(),
    // Fastify's own request lines print the raw URL, and keys travel in the query string:
    // one line per request is logged below instead, with keys redacted.
    logController: new LogController({ disableRequestLogging: true }),
  });
  app.server.maxConnections = options.api.maxConnections;
  // every route's own words may be logged as they are (redact.ts)
  app.addHook('onRoute', (route) => paths.addRoute(route.url));
  // (skipped when nothing would be logged: building the URL is measurable per request)
  if (logger) requestLog(app, paths);
  // (callback hooks on the path every request takes, cached pages included: an async hook costs
  // a promise and a microtask turn per request)
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    done();
  });
  // Requests are served from a pool whose statements time out (PostgreSQL); the indexer and
  // the migrations keep the untimed one.
  const db =
    options.api.statementTimeoutMs > 0 && options.db.withStatementTimeout ? options.db.withStatementTimeout(options.api.statementTimeoutMs) : options.db;
  if (db !== options.db) app.addHook('onClose', async () => db.close());

  for (const schema of [AddressObject, BlockObject, SingleBlockObject, BlockNotFoundBody, MessageBody, ValidationErrorBody, HoldersPage, BlocksValidatedPage]) {
    app.addSchema(schema);
  }
  await app.register(securityHeaders);
  await app.register(corsPlugin, { origins: options.api.corsOrigins });
  await app.register(errorsPlugin);
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Explorer API',
        version: '2',
        description: 'Token holders, validated blocks and blocks, wire-compatible with the hosted explorer API v2.',
      },
      components: {
        securitySchemes: {
          apikey: { type: 'apiKey', in: 'query', name: 'apikey' },
          header: { type: 'apiKey', in: 'header', name: 'x-api-key' },
          bearer: { type: 'http', scheme: 'bearer' },
        },
      },
      security: [{ apikey: [] }, { header: [] }, { bearer: [] }],
    },
  });
  await app.register(swaggerUi, { routePrefix: '/docs', staticCSP: DOCS_CSP });

  const registry = new Registry(db, options.api.restrictedAddresses);
  healthRoute(app, registry, { maxLag: options.api.healthMaxLag, staleMs: options.api.healthStaleMs }, options.drain ?? new ShutdownDrain(), () => longestLockWait(db));
  await webRoute(app, options.webRoot);
  // Built once: the routes do not change once the server is ready, and it is served without a key.
  let openApi: string | undefined;
  app.get('/api/v2/openapi.json', { schema: { hide: true } }, async (_request, reply) =>
    reply.type('application/json; charset=utf-8').send((openApi ??= JSON.stringify(app.swagger()))),
  );
  const metrics = options.metrics ?? new MetricsRegistry();
  withProcessMetrics(metrics);
  requestMetrics(app, metrics);
  const text = metricsText(metrics);
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => reply.type(metrics.contentType).send(await text()));

  // A Redis that does not answer leaves each process its own limits: said once a minute at most.
  const fallbackLog = logThrottle(60_000);
  const onRedisFallback = (error: Error) => {
    if (fallbackLog.due()) app.log.warn({ err: error.message, heldBack: fallbackLog.since() }, 'Redis did not answer: rate limits are counted in this process meanwhile');
  };

  // The operator's scope: admin keys only, never an API key (routes/admin.ts).
  await adminRoutes(app, options.db, {
    adminKeys: options.api.adminKeys,
    defaultLimit: options.api.defaultRateLimit,
    redis: options.redis ?? null,
    onRedisFallback,
  });

  // Everything keyed and limited lives in this scope; health and docs stay outside it.
  await app.register(async (api) => {
    await api.register(rateLimitPlugin, {
      defaultLimit: options.api.defaultRateLimit,
      redis: options.redis ?? null,
    onRedisFallback,
      publicLimit: options.api.publicRateLimit,
    });
    // (before auth: it reads the key from the lowercased query, or from the last of its values)
    etherscanQueryNames(api);
    lastValueWins(api);
    await api.register(authPlugin, {
      db,
      staticKeys: options.api.staticApiKeys,
      // keyless mode: only with a budget for it, only for the CORS origins
      keylessOrigins: options.api.publicRateLimit === null ? null : new Set(options.api.corsOrigins),
    });
    parameterLimits(api);
    const restrictedInLists = chainScope(api, registry, options.api.restrictedKey);
    // (before the page cache: a key with private entries gets answers, and cache entries, of its own)
    const accounts = new AccountIndex(db);
    privateAddressData(api, db, accounts);
    const cache = pageCache(api, { ttlMs: options.api.pageCacheMs ?? 1_000, maxBytes: options.api.pageCacheMb * 2 ** 20 });
    pageCacheMetrics(metrics, cache);
    holdersRoute(api, db);
    instanceHoldersRoute(api, db);
    blocksValidatedRoute(api, db);
    blocksListRoutes(api, db);
    blockRoute(api, db);
    tokenCountersRoute(api, db);
    await etherscanRoutes(api, db, restrictedInLists);
    tokenRoute(api, db);
    addressRoutes(api, db, restrictedInLists);
    chainInfoRoutes(api, db);
    accountRoutes(api, db, accounts);
  });
  return app;
}
