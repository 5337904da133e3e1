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

/** `text` with what lies between the `start` and `end` marker lines replaced by `body`. */
export function withSection(text: string, start: string, end: string, body: string): string {
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`README.md has no markers ${start} … ${end}`);
  return `${text.slice(0, from + start.length)}\n${body}\n${text.slice(to)}`;
}

/** README with its settings table replaced by the current one. */
export function withSettingsTable(readme: string): string {
  return withSection(readme, TABLE_START, TABLE_END, renderSettingsTable());
}
