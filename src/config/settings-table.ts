import type { FlagScope, Setting } from './setting.js';
import { ALL_SETTINGS } from './settings.js';

const SCOPE: Record<FlagScope, string> = { all: '', server: ' (start, serve)', indexer: ' (start, index)' };

/** README's markers around the generated table. */
export const TABLE_START = '<!-- settings table: generated from src/config/settings.ts by `npm run docs:settings` -->';
export const TABLE_END = '<!-- end of settings table -->';

const cell = (text: string) => text.replace(/\|/g, '\\|');

/** The Markdown table of every setting, as README shows it. */
export function renderSettingsTable(settings: ReadonlyArray<Setting<unknown>> = ALL_SETTINGS): string {
  const rows = settings.map((s) => {
    const flag = s.flag ? `\`${s.flag}\`${SCOPE[s.flagScope ?? 'all']}` : '—';
    const env = s.env ? `\`${s.env}\`` : '—';
    const key = s.key === 'config' ? '—' : `\`${s.key}\``;
    const byDefault = s.defaultText ?? (s.default === null ? 'none' : `\`${String(s.default)}\``);
    return `| ${key} | ${cell(flag)} | ${env} | ${cell(byDefault)} | ${cell(s.help)}${s.secret ? ' (a secret: never echoed in messages)' : ''} |`;
  });
  return ['| file key | flag | environment | default | meaning |', '|---|---|---|---|---|', ...rows].join('\n');
}

/** README with its settings table replaced by the current one. */
export function withSettingsTable(readme: string): string {
  const start = readme.indexOf(TABLE_START);
  const end = readme.indexOf(TABLE_END);
  if (start < 0 || end < start) throw new Error('README.md has no settings table markers');
  return `${readme.slice(0, start + TABLE_START.length)}\n${renderSettingsTable()}\n${readme.slice(end)}`;
}
