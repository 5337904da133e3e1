// Build step: the embedded database's template for new data directories (src/db/pglite-template.ts).
// An optimisation only: if it cannot be made, new data directories are made by initdb, as before.
import { buildTemplate } from '../dist/db/pglite-template.js';

try {
  const { path, built } = await buildTemplate();
  if (built) console.log(`pglite template: ${path}`);
} catch (error) {
  console.warn(`pglite template not made (new data directories will run initdb): ${error instanceof Error ? error.message : String(error)}`);
}
