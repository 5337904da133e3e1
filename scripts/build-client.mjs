// Builds packages/client, the typed SDK as a package of its own: `src/index.ts` (the client
// only) bundled into one ES module with no imports, and its types into one declaration file
// whose only import is @sinclair/typebox (the wire schemas' static types). Installing it brings
// the client and TypeBox, not the service's dependencies (PGlite, Fastify, viem, the anvil
// binary). Run by `npm run build:client`, by the package's prepack, and by its test.
import { rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execFileSync } from 'node:child_process';
import { build } from 'esbuild';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = join(root, 'packages/client/dist');
const entry = join(root, 'src/index.ts');

await rm(out, { recursive: true, force: true });
await build({
  entryPoints: [entry],
  outfile: join(out, 'index.js'),
  bundle: true,
  format: 'esm',
  // fetch, AbortSignal and Headers only: Node 18+, browsers, workers
  platform: 'neutral',
  target: 'es2022',
  legalComments: 'none',
  logLevel: 'warning',
});
execFileSync(
  process.execPath,
  [
    join(root, 'node_modules/dts-bundle-generator/dist/bin/dts-bundle-generator.js'),
    '--silent',
    '--no-banner',
    '--project', join(root, 'tsconfig.build.json'),
    '--external-imports', '@sinclair/typebox',
    // only what the entry exports is exported (the schemas' own type names would clash with it)
    '--export-referenced-types', 'false',
    '-o', join(out, 'index.d.ts'),
    entry,
  ],
  { stdio: 'inherit', cwd: root },
);
console.log(`client package: ${out}`);
