import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ensureChain } from '../../src/db/queries/chains.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { listen, startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf, byHoldersOrder } from '../support/seed.js';

/**
 * packages/client, the SDK as a package of its own (scripts/build-client.mjs): built, packed by
 * npm, its tarball installed by npm into a project that then holds it and TypeBox (and Node's
 * types, as a Node backend has them), typechecked there in strict mode with
 * exactOptionalPropertyTypes, and run there against a real server.
 */
const run = promisify(execFile);
const ROOT = join(import.meta.dirname, '../..');
const PACKAGE = join(ROOT, 'packages/client');
const CHAIN = 1;
const TOKEN = addressOf(0, 'client-package-token');
const HOLDERS = Array.from({ length: 260 }, (_, i) => ({ holder: addressOf(i, 'client-package-holder'), value: BigInt(1 + (i % 17)) * 10n ** 20n }));

const CONSUMER = `import { createExplorerClient, NotFoundError, type HolderItem, type HoldersPageParams } from 'explorer-api-client';

// options left undefined, as a strict project with exactOptionalPropertyTypes writes them
const maxRetries: number | undefined = undefined;
const client = createExplorerClient({ baseUrl: process.env.BASE_URL!, apiKey: process.env.API_KEY!, maxRetries });
const rows: Array<{ hash: string; value: string }> = [];
for await (const item of client.iterateHolders(Number(process.env.CHAIN), process.env.TOKEN!, { itemsCount: 50 })) {
  const typed: HolderItem = item;
  // @ts-expect-error a holder's value is a decimal string, not a number: the types are the wire's, not any
  const wrong: number = typed.value;
  void wrong;
  rows.push({ hash: typed.address.hash, value: typed.value });
}
// the same list paged by hand, each page's next_page_params passed back
const paged: string[] = [];
let after: HoldersPageParams | undefined;
do {
  const page = await client.holders(Number(process.env.CHAIN), process.env.TOKEN!, { itemsCount: 50, after, blockNumber: undefined });
  paged.push(...page.items.map((i) => i.address.hash));
  after = page.next_page_params ?? undefined;
} while (after !== undefined);
let notFound = false;
try {
  await client.holders(Number(process.env.CHAIN), '0x${'ab'.repeat(20)}');
} catch (error) {
  notFound = error instanceof NotFoundError && error.status === 404;
}
console.log(JSON.stringify({ rows, paged, notFound }));
`;

describe('the client-only package', () => {
  let api: TestApi;
  let project: string;
  let baseUrl: string;

  beforeAll(async () => {
    await run(process.execPath, [join(ROOT, 'scripts/build-client.mjs')], { cwd: ROOT });
    project = await mkdtemp(join(tmpdir(), 'client-package-'));
    api = await startTestApi('pglite');
    await ensureChain(api.db, CHAIN);
    await upsertTokens(api.db, [{ chainId: CHAIN, address: TOKEN, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null }]);
    await putBalances(api.db, HOLDERS.map((h) => ({ chainId: CHAIN, token: TOKEN, holder: h.holder, tokenId: null, value: h.value, blockNumber: 1n })));
    baseUrl = await listen(api.app);
  });
  afterAll(async () => {
    await api?.close();
    if (project) await rm(project, { recursive: true, force: true });
  });

  it('packs its bundle, its types and nothing else; the bundle imports nothing', async () => {
    const { stdout } = await run('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: PACKAGE });
    const [packed] = JSON.parse(stdout) as Array<{ files: Array<{ path: string }>; unpackedSize: number }>;
    expect(packed!.files.map((f) => f.path).sort()).toEqual(['README.md', 'dist/index.d.ts', 'dist/index.js', 'package.json']);
    expect(packed!.unpackedSize).toBeLessThan(100_000);
    const manifest = JSON.parse(await readFile(join(PACKAGE, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; version: string; license: string };
    expect(Object.keys(manifest.dependencies)).toEqual(['@sinclair/typebox']);
    const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; version: string; license: string };
    expect(manifest.version).toBe(root.version);
    expect(manifest.license).toBe(root.license);
    expect(manifest.dependencies['@sinclair/typebox']).toBe(root.dependencies['@sinclair/typebox']);
    const bundle = await readFile(join(PACKAGE, 'dist/index.js'), 'utf8');
    expect(bundle).not.toMatch(/^\s*import\b|\bimport\s*\(|\brequire\s*\(/m);
    const types = await readFile(join(PACKAGE, 'dist/index.d.ts'), 'utf8');
    expect([...types.matchAll(/from '([^']+)'|import\("([^"]+)"\)/g)].map((m) => m[1] ?? m[2]).filter((m) => m !== '@sinclair/typebox')).toEqual([]);
  });

  it('packed and installed by npm, brings TypeBox alone, typechecks in strict mode and walks a real server’s holders', async () => {
    // the tarball npm pack makes, installed by npm with Node's types beside it, as a Node backend has them
    await run('npm', ['pack', '--ignore-scripts', '--pack-destination', project], { cwd: PACKAGE });
    const root = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as { version: string; devDependencies: Record<string, string> };
    await writeFile(
      join(project, 'package.json'),
      JSON.stringify({
        name: 'consumer', private: true, type: 'module',
        dependencies: { 'explorer-api-client': `file:./explorer-api-client-${root.version}.tgz` },
        devDependencies: { '@types/node': root.devDependencies['@types/node'] },
      }),
    );
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts'], { cwd: project });
    // what the package brings: itself and TypeBox, nothing of the service
    const { stdout: tree } = await run('npm', ['ls', '--all', '--omit=dev', '--json'], { cwd: project });
    const installed = JSON.parse(tree) as { dependencies: Record<string, { dependencies?: Record<string, { dependencies?: unknown }> }> };
    expect(Object.keys(installed.dependencies)).toEqual(['explorer-api-client']);
    expect(Object.keys(installed.dependencies['explorer-api-client']!.dependencies ?? {})).toEqual(['@sinclair/typebox']);
    expect(installed.dependencies['explorer-api-client']!.dependencies!['@sinclair/typebox']!.dependencies).toBeUndefined();
    await writeFile(join(project, 'consumer.ts'), CONSUMER);
    await writeFile(
      join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          strict: true, target: 'ES2022', module: 'nodenext', moduleResolution: 'nodenext', lib: ['ES2022'],
          types: ['node'], skipLibCheck: false, noUnusedLocals: true, exactOptionalPropertyTypes: true, outDir: 'out',
        },
        files: ['consumer.ts'],
      }),
    );
    // the project's own compiler: a type error (or an unused @ts-expect-error) fails here
    const tsc = await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project }).catch((error: { stdout?: string }) => ({ failed: error.stdout ?? String(error) }));
    expect(tsc).not.toHaveProperty('failed');
    const { stdout } = await run(process.execPath, [join(project, 'out/consumer.js')], {
      cwd: project,
      env: { ...process.env, BASE_URL: baseUrl, API_KEY: TEST_KEY, CHAIN: String(CHAIN), TOKEN },
    });
    const { rows, paged, notFound } = JSON.parse(stdout) as { rows: Array<{ hash: string; value: string }>; paged: string[]; notFound: boolean };
    const expected = [...HOLDERS].sort(byHoldersOrder).map((h) => ({ hash: h.holder, value: h.value.toString() }));
    expect(rows.map((r) => ({ hash: r.hash.toLowerCase(), value: r.value }))).toEqual(expected);
    expect(paged).toEqual(rows.map((r) => r.hash));
    expect(notFound).toBe(true);
  });
});
