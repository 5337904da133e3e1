/**
 * What the operator's commands print: `migrate` says whether it applied anything (a migration
 * told from a no-op), `keys` shows the rate limit a key gets and refuses in the CLI's one-line form.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import pg from 'pg';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';
import { runCli } from '../support/cli.js';
import { POSTGRES_ADMIN_URL } from '../support/databases.js';

const dir = mkdtempSync(join(tmpdir(), 'explorer-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('applies every migration once, then reports nothing to apply', async () => {
  // an empty PostgreSQL database (a new PGlite directory comes migrated: below)
  const name = `explorer_test_${randomBytes(6).toString('hex')}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ connectionString: POSTGRES_ADMIN_URL });
    await client.connect();
    await client.query(sql).finally(() => client.end());
  };
  await admin(`CREATE DATABASE ${name}`);
  try {
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = `/${name}`;
    const run = () => runCli(['migrate'], { cwd: dir, env: { DATABASE_URL: url.toString() } });
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`database (postgres): applied ${migrations.length} migrations (${migrations.map((m) => m.id).join(', ')}); up to date\n`);
    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('database (postgres) was up to date: nothing applied\n');
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}, 120_000);

it('a new embedded database comes with every migration: the build’s template holds them', async () => {
  const first = await runCli(['migrate', '--data-dir', join(dir, 'data')], { cwd: dir });
  expect(first.code, first.stderr).toBe(0);
  expect(first.stdout).toBe('database (pglite) was up to date: nothing applied\n');
}, 120_000);

it('keys: the limit a key without its own gets, as create and list show it; revoking no key is an error line', async () => {
  const data = ['--data-dir', join(dir, 'keys')];
  const created = await runCli(['keys', 'create', '--name', 'me', ...data], { cwd: dir });
  expect(created.code, created.stderr).toBe(0);
  const [line, key] = created.stdout.trim().split('\n');
  expect(line).toBe('id 1  me  rate limit 10/s');
  const listed = await runCli(['keys', 'list', ...data], { cwd: dir });
  expect(listed.stdout).toBe(`1\t${key!.slice(0, 8)}…\tme\t10/s (default)\tactive\n`);
  const revoked = await runCli(['keys', 'revoke', '99', ...data], { cwd: dir });
  expect(revoked.code).toBe(1);
  expect(revoked.stderr).toBe('explorer: no active key with id 99\n');
}, 120_000);
