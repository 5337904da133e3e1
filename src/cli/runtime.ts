import { pino, type Logger } from 'pino';
import { Redis } from 'ioredis';
import { resolve } from 'node:path';
import type { Config } from '../config/config.js';
import { openDatabase, type Database } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { IndexerMetrics } from '../indexer/metrics.js';
import { logThrottle } from '../log-throttle.js';

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

export function createLogger(level: string): Logger {
  return pino({ level, base: { service: 'explorer' } });
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

/** Opens what every role needs: the migrated database, Redis when configured, the logger. */
export async function openRuntime(config: Config, logger = createLogger(config.logLevel)): Promise<Runtime> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl ?? undefined, dataDir: config.dataDir, poolSize: config.databasePoolSize });
  // which database and Redis, said once: a process that fell back to the embedded database for
  // want of DATABASE_URL is seen at once (outside review); never a credential
  logger.info({ database: databaseShown(config), redis: config.api.redisUrl ? hostOf(config.api.redisUrl) : null }, 'database opened');
  const applied = await migrate(db);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  const redis = config.api.redisUrl ? openRedis(config.api.redisUrl, logger) : null;
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
