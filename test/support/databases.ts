import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { migrations } from '../../src/db/migrations/index.js';
import pg from 'pg';
import { Redis } from 'ioredis';
import { openDatabase, type Database } from '../../src/db/client.js';
import { migrate } from '../../src/db/migrate.js';
import { migratedDump, migrationsDigest } from '../../src/db/pglite-template.js';

export const POSTGRES_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

async function reachable(check: () => Promise<unknown>): Promise<boolean> {
  try {
    await check();
    return true;
  } catch {
    return false;
  }
}

let postgresUp: Promise<boolean> | undefined;
let redisUp: Promise<boolean> | undefined;

/**
 * Whether the real PostgreSQL is here. Under CI its absence is an error, never a skip; on a
 * developer's machine without it, the PostgreSQL variants are skipped and say so.
 */
export function postgresAvailable(): Promise<boolean> {
  postgresUp ??= reachable(async () => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL, connectionTimeoutMillis: 3_000 });
    await client.connect();
    await client.end();
  }).then((up) => requireUnderCi(up, `PostgreSQL at ${POSTGRES_ADMIN_URL}`));
  return postgresUp;
}

export function redisAvailable(): Promise<boolean> {
  redisUp ??= reachable(async () => {
    const r = new Redis(REDIS_URL, { lazyConnect: true, maxRetriesPerRequest: 0, connectTimeout: 3_000 });
    try {
      await r.connect();
      await r.ping();
    } finally {
      r.disconnect();
    }
  }).then((up) => requireUnderCi(up, `Redis at ${REDIS_URL}`));
  return redisUp;
}

function requireUnderCi(up: boolean, what: string): boolean {
  if (up) return true;
  if (process.env.CI) throw new Error(`${what} is required under CI and is not reachable`);
  console.warn(`[skip] ${what} is not reachable: its test variants are skipped`);
  return false;
}

export type Engine = 'pglite' | 'postgres';
export const ENGINES: Engine[] = ['pglite', 'postgres'];

/** A fresh, migrated database of the given engine; PostgreSQL gets a throwaway database. */
export async function freshDatabase(engine: Engine): Promise<{ db: Database; url: string | null; drop: () => Promise<void> }> {
  if (engine === 'pglite') {
    const db = await openDatabase({ template: await pgliteTemplate() });
    await migrate(db); // a no-op on the template; keeps this honest if the cache is stale
    return { db, url: null, drop: () => db.close() };
  }
  const empty = await emptyPostgresDatabase();
  const db = await openDatabase({ databaseUrl: empty.url });
  await migrate(db);
  return {
    db,
    url: empty.url,
    drop: async () => {
      await db.close();
      await empty.drop();
    },
  };
}

/** A new PostgreSQL database with nothing in it, not even the migrations; `drop` removes it. */
export async function emptyPostgresDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `explorer_test_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(POSTGRES_ADMIN_URL);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/**
 * A database of the given engine with the migrations before `migrationId` applied and none after,
 * to test what a migration does to rows stored before it. `close` drops it.
 */
export async function databaseBefore(engine: Engine, migrationId: string): Promise<{ db: Database; close: () => Promise<void> }> {
  const index = migrations.findIndex((m) => m.id === migrationId);
  if (index < 0) throw new Error(`no migration ${migrationId}`);
  let db: Database;
  let close: () => Promise<void>;
  if (engine === 'pglite') {
    db = await openDatabase({ memory: true });
    close = () => db.close();
  } else {
    const fresh = await freshDatabase(engine);
    db = fresh.db;
    close = fresh.drop;
    await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public');
  }
  await migrate(db, migrations.slice(0, index));
  return { db, close };
}

/** The engines to run a suite on here: PGlite always, PostgreSQL when present (required under CI). */
export async function availableEngines(): Promise<Engine[]> {
  return (await postgresAvailable()) ? ENGINES : ['pglite'];
}

const CACHE_DIR = fileURLToPath(new URL('../../node_modules/.cache/explorer-pglite/', import.meta.url));
let template: Promise<Blob> | undefined;

/**
 * A migrated PGlite data directory, made once and kept on disk keyed by the migrations: a new
 * instance loads it in a second or two instead of running initdb and the migrations (which
 * costs 5–20 s on a busy 2-core machine) in every test file.
 */
function pgliteTemplate(): Promise<Blob> {
  template ??= (async () => {
    const file = join(CACHE_DIR, `template-${migrationsDigest()}.tar`);
    if (existsSync(file)) return new Blob([readFileSync(file)]);
    const blob = await migratedDump('none');
    mkdirSync(CACHE_DIR, { recursive: true });
    // written under a unique name and renamed: concurrent workers never read a partial file
    const partial = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    writeFileSync(partial, Buffer.from(await blob.arrayBuffer()));
    renameSync(partial, file);
    return blob;
  })();
  return template;
}

/** The names of a table's indexes, sorted: what the partition and migration tests compare. */
export const indexesOn = async (db: Database, table: string): Promise<string[]> =>
  (await db.query<{ name: string }>('SELECT indexname AS name FROM pg_indexes WHERE tablename = $1 ORDER BY 1', [table])).map((r) => r.name);
