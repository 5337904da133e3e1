import { pino, type DestinationStream, type Logger } from 'pino';
import { Redis } from 'ioredis';
import { resolve } from 'node:path';
import type { Config } from '../config/config.js';
import { openDatabase, type Database } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { IndexerMetrics } from '../indexer/metrics.js';
import { logThrottle } from '../log-throttle.js';
import { maskerOf, rpcUrlSecrets, serviceUrlSecrets } from '../rpc/url-secrets.js';
import { CHAIN_KINDS } from '../chains/index.js';
import type { ChainKind } from '../chains/kind.js';

export interface Runtime {
  config: Config;
  db: Database;
  redis: Redis | null;
  logger: Logger;
  /** one registry per process, served at /metrics by the API role */
  metrics: IndexerMetrics;
  /** the migrations this opening applied (none when the database was up to date) */
  migrationsApplied: string[];
  close(): Promise<void>;
}

/**
 * The process's logger. Every line it writes has the secrets of the configured URLs masked
 * (rpc/url-secrets.ts), however they got into it: a node echoing its key in an error, an error's
 * cause quoting the URL it was fetching, a driver's message.
 */
export function createLogger(level: string, config?: Config, destination?: DestinationStream): Logger {
  const mask = maskerOf(config ? configSecrets(config) : []);
  const options = { level, base: { service: 'explorer' }, hooks: { streamWrite: mask } };
  return destination ? pino(options, destination) : pino(options);
}

/** What of the configured URLs may be a secret. */
function configSecrets(config: Config): string[] {
  const rpc = config.chains.flatMap((chain) => [...chain.rpcUrls, ...(CHAIN_KINDS as readonly ChainKind[]).flatMap((kind) => kind.otherRpcUrls?.(chain) ?? [])]);
  const services = [config.databaseUrl, config.api.redisUrl].filter((url): url is string => typeof url === 'string');
  return [...rpc.flatMap(rpcUrlSecrets), ...services.flatMap(serviceUrlSecrets)];
}

/** host:port/path of a URL, without credentials or query */
function hostOf(url: string): string {
  const u = new URL(url);
  return `${u.host}${u.pathname === '/' ? '' : u.pathname}`;
}

function databaseShown(config: Config): string {
  return config.databaseUrl ? `PostgreSQL at ${hostOf(config.databaseUrl)}` : `embedded (PGlite) in ${resolve(config.dataDir)}`;
}

/**
 * The rate limits' Redis client. A request never waits for Redis: no offline queue, and a hung
 * Redis answers nothing, which the command timeout turns into an error; each process counts its
 * limits itself meanwhile (api/plugins/shared-rate-store.ts).
 */
export function openRedis(url: string, logger: Pick<Logger, 'warn' | 'info'>): Redis {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, commandTimeout: 250 });
  // every reconnection attempt fails alike: once a minute is enough
  const unavailable = logThrottle(60_000);
  redis.on('error', (err: Error) => {
    if (unavailable.due()) logger.warn({ err: err.message }, 'Redis unavailable: rate limits are counted in each process meanwhile');
  });
  redis.on('ready', () => {
    if (unavailable.said) logger.info('Redis available again: rate limits are shared again');
    unavailable.reset();
  });
  return redis;
}

/**
 * Opens what every role needs: the migrated database, the logger and, when configured and
 * `withRedis`, Redis (only the API's rate limits use it: a short command that opened it printed
 * a Redis warning as it closed, L2 review).
 */
export async function openRuntime(config: Config, logger = createLogger(config.logLevel, config), withRedis = true): Promise<Runtime> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl ?? undefined, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  // which database and Redis, said once: a process that fell back to the embedded database for
  // want of DATABASE_URL is seen at once (outside review); never a credential
  logger.info({ database: databaseShown(config), redis: config.api.redisUrl ? hostOf(config.api.redisUrl) : null }, 'database opened');
  const applied = await migrate(db, undefined, {
    onLockWait: ({ attempt, sessions }) =>
      logger.warn({ attempt, sessions }, 'migrations wait for a lock another session holds (a transaction left open, a backup, a long query): trying again'),
  });
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  const redis = config.api.redisUrl && withRedis ? openRedis(config.api.redisUrl, logger) : null;
  return {
    config,
    db,
    redis,
    logger,
    metrics: new IndexerMetrics(),
    migrationsApplied: applied,
    async close() {
      redis?.disconnect();
      await db.close();
    },
  };
}
