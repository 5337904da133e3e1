// Rewrites README's generated tables: the settings (src/config/settings.ts) and the
// Etherscan-style actions (src/api/routes/etherscan/actions.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from '../src/config/settings-table.js';
import { withActionsTable } from '../src/api/routes/etherscan/actions-table.js';

const readme = new URL('../README.md', import.meta.url);
writeFileSync(readme, withActionsTable(withSettingsTable(readFileSync(readme, 'utf8'))));
