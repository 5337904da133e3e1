// Rewrites README's settings table from the setting definitions (src/config/settings.ts).
import { readFileSync, writeFileSync } from 'node:fs';
import { withSettingsTable } from '../src/config/settings-table.js';

const readme = new URL('../README.md', import.meta.url);
writeFileSync(readme, withSettingsTable(readFileSync(readme, 'utf8')));
