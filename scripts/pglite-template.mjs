// Build step: the embedded database's template for new data directories (src/db/pglite-template.ts).
// Only a shortcut: new data directories run initdb (and the migrations) without it. So nothing that happens to it
// fails the build: it is made in a child process (initdb's ~830 MB peak, which an out-of-memory
// kill may end), and EXPLORER_PGLITE_TEMPLATE=0 skips it (a machine where that peak does not fit).
import { spawnSync } from 'node:child_process';

if (process.argv[2] === 'child') {
  const { buildTemplate } = await import('../dist/db/pglite-template.js');
  const { path, built } = await buildTemplate();
  if (built) console.log(`pglite template: ${path}`);
} else if (process.env.EXPLORER_PGLITE_TEMPLATE === '0') {
  console.log('pglite template skipped (EXPLORER_PGLITE_TEMPLATE=0): new data directories will run initdb');
} else {
  const child = spawnSync(process.execPath, [new URL(import.meta.url).pathname, 'child'], { stdio: 'inherit' });
  if (child.status !== 0) {
    const how = child.signal ? `killed by ${child.signal}` : child.error ? child.error.message : `exit ${child.status}`;
    console.warn(`pglite template not made (${how}): new data directories will run initdb`);
  }
}
