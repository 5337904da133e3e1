/**
 * Every CLI error is one clear line on stderr and a non-zero exit code; `--verbose` adds the
 * trace. The real `explorer` runs as a child process, from a temporary working directory.
 */
import { existsSync, mkdtempSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { POSTGRES_ADMIN_URL, postgresAvailable } from '../support/databases.js';
import { runCli, startCli, type CliResult } from '../support/cli.js';
import { freePort } from '../support/api-process.js';
import { startTestNode } from '../support/anvil.js';

const ADDRESS = '0x00000000000000000000000000000000000000a1';

const withPostgres = await postgresAvailable();
const cwd = () => mkdtempSync(join(tmpdir(), 'explorer-cli-'));

/** One line, `explorer: …`, no stack frame, exit code ≠ 0. */
function expectOneLine(result: CliResult, pattern: RegExp): void {
  expect(result.code, result.stderr).not.toBe(0);
  expect(result.code).not.toBeNull();
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^explorer: /);
  expect(lines[0]).toMatch(pattern);
}

/** Runs several CLI invocations at a time: each is mostly a Node start-up. */
async function all<T>(items: readonly T[], fn: (item: T) => Promise<void>, width = 3): Promise<void> {
  const queue = [...items];
  await Promise.all(Array.from({ length: width }, async () => {
    for (let item = queue.shift(); item !== undefined; item = queue.shift()) await fn(item);
  }));
}

describe('CLI errors: one line, exit code ≠ 0', () => {
  it('bad arguments and flags are refused before anything is opened', async () => {
    const dir = cwd();
    const cases: Array<[string[], RegExp]> = [
      // `start` is the default command: a mistyped command is not an argument of it
      [['bogus'], /^explorer: unknown command 'bogus' \(commands: start, serve, index, /],
      [['keys', 'revoke', 'abc'], /value 'abc' is invalid for argument 'id'\. expected a key id/],
      [['keys', 'revoke', '1.5'], /value '1.5' is invalid for argument 'id'\. expected a key id/],
      [['keys', 'revoke', '0'], /expected a key id/],
      [['restrict', 'add', ADDRESS, '--chain-id', 'abc'], /'--chain-id <id>' argument 'abc' is invalid.*expected a chain id/],
      [['restrict', 'add', ADDRESS, '--chain-id', '-1'], /'--chain-id <id>' argument '-1' is invalid.*expected a chain id/],
      [['restrict', 'add', ADDRESS, '--chain-id', '1.5'], /expected a chain id/],
      [['restrict', 'remove', ADDRESS, '--chain-id', '0'], /expected a chain id/],
      [['restrict', 'add', '0x12'], /value '0x12' is invalid for argument 'address'/],
      [['serve', '--port', '70000'], /'--port <port>' argument '70000' is invalid.*expected an integer from 0 to 65535/],
      [['index', '--chain', 'abc=http://node.example'], /expected a chain id/],
      [['index', '--chain', 'http://node.example'], /expected <chainId>=<rpcUrl>/],
      [['index', '--start-block', '-3'], /expected a block number/],
      [['keys', 'create'], /required option '--name <name>' not specified/],
      [['keys', 'list', '--nonsense'], /unknown option '--nonsense'/],
      [['export', 'holders', '--chain', '-1', '--token', ADDRESS], /expected a chain id/],
      // an RPC URL's credentials and provider key never come back in the message
      [['index', '--chain', '31337=http://u:RpcPw@127.0.0.1:8645/v2/KEY123,ftp://x'], /^explorer: --chain "31337=http:\/\/127\.0\.0\.1:8645\/…,ftp:\/\/x": 0\/rpcUrls\/1: expected an http\(s\) or ws\(s\) URL$/],
    ];
    await all(cases, async ([args, pattern]) => expectOneLine(await runCli(args, { cwd: dir }), pattern));
    expect(readdirSync(dir)).toEqual([]); // no data directory was made for any of them
  }, 240_000);

  it('bad settings from the environment or the config file name the setting', async () => {
    const dir = cwd();
    writeFileSync(join(dir, 'typo.json'), JSON.stringify({ prot: 4000 }));
    writeFileSync(join(dir, 'broken.json'), '{"port": 4000,');
    writeFileSync(join(dir, 'secret.json'), JSON.stringify({ restrictedKey: 42 }));
    const cases: Array<[string[], Record<string, string>, RegExp]> = [
      [['serve'], { PORT: 'abc' }, /^explorer: PORT="abc": expected an integer from 0 to 65535$/],
      [['keys', 'list', '--config', 'typo.json'], {}, /typo\.json: prot: unknown key \(did you mean port\?\)$/],
      [['keys', 'list', '--config', 'broken.json'], {}, /broken\.json is not valid JSON/],
      [['keys', 'list', '--config', 'missing.json'], {}, /missing\.json: no such file$/],
      [['keys', 'list'], { EXPLORER_CONFIG: 'secret.json' }, /secret\.json: restrictedKey: expected a non-empty text of at most 256 characters$/],
      [['serve'], { EXPLORER_RESTRICTED_KEY: 'k'.repeat(257) }, /^explorer: EXPLORER_RESTRICTED_KEY: expected a non-empty text of at most 256 characters$/],
      [['serve'], { EXPLORER_TRUST_PROXY: '10.0.0.0/33' }, /^explorer: EXPLORER_TRUST_PROXY="10\.0\.0\.0\/33": 0: expected an IP address or CIDR range, e\.g\. 10\.0\.0\.0\/8$/],
      [['index'], { EXPLORER_WRITER_LEASE_MS: '1' }, /^explorer: EXPLORER_WRITER_LEASE_MS="1": expected 0 \(off\) or an integer from 5000 to 3600000$/],
      [['keys', 'list'], { DATABASE_URL: 'mysql://root:hunter2@db/x' }, /^explorer: DATABASE_URL: expected a postgres:\/\/ URL$/],
      [['keys', 'list'], { DATABASE_URL: 'postgres://u:DbPw0rd1@h:notaport/db' }, /^explorer: DATABASE_URL: expected a postgres:\/\/ URL$/],
      [['migrate'], { EXPLORER_CHAINS: '31337=http://u:RpcPw@127.0.0.1:8645|ftp://x' }, /^explorer: EXPLORER_CHAINS="31337=http:\/\/127\.0\.0\.1:8645\|ftp:\/\/x": 0\/rpcUrls\/1: /],
    ];
    await all(cases, async ([args, env, pattern]) => expectOneLine(await runCli(args, { cwd: dir, env }), pattern));
  }, 240_000);

  it('a port another process listens on is refused before the database is opened', async () => {
    const taken = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as AddressInfo).port;
    try {
      const dir = cwd();
      const result = await runCli(['serve', '--port', String(port), '--data-dir', join(dir, 'data')], { cwd: dir });
      expectOneLine(result, new RegExp(`^explorer: port ${port} on 127\\.0\\.0\\.1 is in use by another process: stop it, or pick another with --port$`));
      expect(existsSync(join(dir, 'data'))).toBe(false);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  }, 60_000);

  it('an unreachable PostgreSQL is one line naming host and port, never the password', async () => {
    const result = await runCli(['keys', 'list'], { cwd: cwd(), env: { DATABASE_URL: 'postgres://explorer:hunter2@127.0.0.1:1/explorer' } });
    expectOneLine(result, /^explorer: cannot reach the database: 127\.0\.0\.1:1: connection refused$/);
    expect(result.stderr).not.toContain('hunter2');
  }, 60_000);

  it.runIf(withPostgres)('a missing PostgreSQL database is one line; --verbose adds the trace', async () => {
    const url = new URL(POSTGRES_ADMIN_URL);
    url.pathname = '/explorer_no_such_database';
    const env = { DATABASE_URL: url.toString() };
    expectOneLine(await runCli(['keys', 'list'], { cwd: cwd(), env }), /^explorer: PostgreSQL: database "explorer_no_such_database" does not exist \(SQLSTATE 3D000\)$/);
    const verbose = await runCli(['keys', 'list', '--verbose'], { cwd: cwd(), env });
    expect(verbose.code).not.toBe(0);
    expect(verbose.stderr.split('\n')[0]).toMatch(/^explorer: PostgreSQL: database "explorer_no_such_database" does not exist/);
    expect(verbose.stderr).toMatch(/\n\s+at /);
  }, 60_000);
});

describe('a refused start leaves nothing behind', () => {
  // outside review: a start refused for a URL of another chain registered the chain anyway, and
  // every reader's /health then reported it as never reached
  it('`index` whose node serves another chain exits with one line and registers no chain', async () => {
    const node = await startTestNode();
    try {
      const dir = cwd();
      const env = { EXPLORER_DATA_DIR: join(dir, 'data') };
      expectOneLine(await runCli(['index', '--chain', `1=${node.url}`], { cwd: dir, env }), new RegExp(`serves chain id 31337, not 1$`));
      const listed = await runCli(['chains', 'list'], { cwd: dir, env });
      expect(listed.code, listed.stderr).toBe(0);
      expect(listed.stdout).not.toMatch(/^1\t/m);
    } finally {
      await node.stop();
    }
  }, 120_000);
});

describe('a node that hangs at start', () => {
  // outside review: --metrics-port listened only once the node had answered the start's checks
  it('leaves --metrics-port answering while `index` waits for it', async () => {
    const hung = createServer(() => undefined); // accepts connections, never answers
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const metricsPort = await freePort();
    const dir = cwd();
    const indexer = startCli(['index', '--chain', `31337=http://127.0.0.1:${(hung.address() as AddressInfo).port}`, '--metrics-port', String(metricsPort)], {
      cwd: dir,
      env: { EXPLORER_DATA_DIR: join(dir, 'data') },
    });
    try {
      const deadline = Date.now() + 60_000;
      let status = 0;
      while (status !== 200 && Date.now() < deadline && indexer.child.exitCode === null) {
        status = await fetch(`http://127.0.0.1:${metricsPort}/metrics`).then((r) => r.status, () => 0);
        if (status !== 200) await new Promise((r) => setTimeout(r, 250));
      }
      expect([status, indexer.child.exitCode], indexer.stderr()).toEqual([200, null]);
    } finally {
      await indexer.stop();
      hung.close();
    }
  }, 120_000);

  // L2-provider review: `start` kept its API port closed for minutes while the node hung, so
  // what was indexed went unserved and a liveness probe would have restarted it in a loop
  it('leaves the API of `start` answering (/health, and 503 while no chain is known) while it waits for the node', async () => {
    const hung = createServer(() => undefined);
    await new Promise<void>((r) => hung.listen(0, '127.0.0.1', r));
    const port = await freePort();
    const dir = cwd();
    const start = startCli(['start', '--chain', `31337=http://127.0.0.1:${(hung.address() as AddressInfo).port}`, '--port', String(port)], {
      cwd: dir,
      env: { EXPLORER_DATA_DIR: join(dir, 'data') },
    });
    try {
      const deadline = Date.now() + 60_000;
      let status = 0;
      while (status === 0 && Date.now() < deadline && start.child.exitCode === null) {
        status = await fetch(`http://127.0.0.1:${port}/health`).then((r) => r.status, () => 0);
        if (status === 0) await new Promise((r) => setTimeout(r, 250));
      }
      // the node has not said which chain it serves, so none is registered yet: unavailable, said by a listening server
      expect([status, start.child.exitCode], start.stderr()).toEqual([503, null]);
    } finally {
      await start.stop();
      hung.close();
    }
  }, 120_000);
});

describe('settings reach the commands that use them', () => {
  // issue 12: `EXPLORER_DATA_DIR=/data explorer keys revoke 3` acted on a fresh ./.explorer
  it('EXPLORER_DATA_DIR and the config file\'s dataDir are where keys live', async () => {
    const dir = cwd();
    const env = { EXPLORER_DATA_DIR: join(dir, 'from-env') };
    const created = await runCli(['keys', 'create', '--name', 'ops'], { cwd: dir, env });
    expect(created.code, created.stderr).toBe(0);
    const id = /^id (\d+)/.exec(created.stdout)?.[1];
    expect(id).toBeDefined();
    const revoked = await runCli(['keys', 'revoke', id!], { cwd: dir, env });
    expect(revoked.code, revoked.stderr).toBe(0);
    expect(revoked.stdout).toMatch(new RegExp(`^revoked ${id}`));
    writeFileSync(join(dir, 'explorer.json'), JSON.stringify({ dataDir: join(dir, 'from-file') }));
    const listed = await runCli(['keys', 'list', '--config', 'explorer.json'], { cwd: dir });
    expect(listed.code, listed.stderr).toBe(0);
    expect(existsSync(join(dir, 'from-file', 'pgdata'))).toBe(true);
    expect(existsSync(join(dir, '.explorer'))).toBe(false);
  }, 180_000);
});
