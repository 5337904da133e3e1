import { pino, type Logger } from 'pino';
import { Redis } from 'ioredis';
import type { Config } from '../config/config.js';
import { openDatabase, type Database } from '../db/client.js';
import { migrate } from '../db/migrate.js';
import { ensureChain } from '../db/queries/chains.js';
import { IndexerMetrics } from '../indexer/metrics.js';

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

/** Opens what every role needs: the migrated database, Redis when configured, the logger. */
export async function openRuntime(config: Config, logger = createLogger(config.logLevel)): Promise<Runtime> {
  const db = await openDatabase({ databaseUrl: config.databaseUrl ?? undefined, dataDir: config.dataDir });
  const applied = await migrate(db);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  for (const chain of config.chains) await ensureChain(db, chain.chainId, chain.elasticity, chain.blobSchedule ?? null);
  const redis = config.api.redisUrl ? new Redis(config.api.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : null;
  redis?.on('error', (err) => logger.warn({ err: err.message }, 'redis unavailable; rate limits are not enforced meanwhile'));
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
