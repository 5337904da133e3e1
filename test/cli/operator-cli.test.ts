/**
 * What the operator's commands print: `migrate` says whether it applied anything (a migration
 * told from a no-op), `keys` shows the rate limit a key gets and refuses in the CLI's one-line form.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { migrations } from '../../src/db/migrations/index.js';
import { runCli } from '../support/cli.js';
import { emptyPostgresDatabase } from '../support/databases.js';

const dir = mkdtempSync(join(tmpdir(), 'explorer-migrate-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

it('applies every migration once, then reports nothing to apply', async () => {
  // an empty PostgreSQL database (a new PGlite directory comes migrated: below)
  const empty = await emptyPostgresDatabase();
  try {
    const run = () => runCli(['migrate'], { cwd: dir, env: { DATABASE_URL: empty.url } });
    const first = await run();
    expect(first.code, first.stderr).toBe(0);
    expect(first.stdout).toBe(`database (postgres): applied ${migrations.length} migrations (${migrations.map((m) => m.id).join(', ')}); up to date\n`);
    const second = await run();
    expect(second.code, second.stderr).toBe(0);
    expect(second.stdout).toBe('database (postgres) was up to date: nothing applied\n');
  } finally {
    await empty.drop();
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

it('restrict remove names the entry that is there when the one asked for is not', async () => {
  const data = ['--data-dir', join(dir, 'restrict')];
  const address = '0x5FbDB2315678afecb367f032d93F642f64180aa3';
  const run = async (...args: string[]) => {
    const result = await runCli(['restrict', ...args, ...data], { cwd: dir });
    expect(result.code, result.stderr).toBe(0);
    return result.stdout;
  };
  const a = address.toLowerCase();
  await run('add', address, '--chain-id', '31337');
  expect(await run('remove', address)).toBe(`${a} was not restricted on every chain; it is on chain 31337 (--chain-id 31337)\n`);
  expect(await run('remove', address, '--chain-id', '5')).toBe(`${a} was not restricted on chain 5; it is on chain 31337 (--chain-id 31337)\n`);
  expect(await run('remove', address, '--chain-id', '31337')).toBe(`removed ${a}\n`);
  expect(await run('remove', address)).toBe(`${a} was not restricted\n`);
}, 120_000);
