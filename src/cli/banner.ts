import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/config.js';

/**
 * The demo's key: made on the first start and kept in the data directory, so a browser that
 * saved it keeps working. Never one of the configured keys, which are secrets (banner below).
 */
export function demoKey(config: Config): string {
  const file = join(config.dataDir, 'devnet', 'demo-api-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(join(config.dataDir, 'devnet'), { recursive: true });
  const key = `demo_${randomBytes(16).toString('hex')}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

export interface DemoInfo {
  token: string;
  miner: string;
  /** the demo's own key (demoKey), the one key the banner shows */
  key: string;
}

/**
 * Where a key comes from when none is shown: stdout is the log under a service manager, so a
 * configured key never appears in it; on the embedded database the key command needs the data
 * directory, which the running service holds.
 */
function keyHint(config: Config, storedKeys: number): string {
  if (config.api.staticApiKeys.length > 0) return '<one of your apiKeys (not shown)>';
  // (keys created earlier, e.g. before an upgrade: operator review saw "none yet" beside them)
  if (storedKeys > 0) return `<one of the ${storedKeys} key${storedKeys === 1 ? '' : 's'} created with explorer keys create (explorer keys list; not shown)>`;
  if (config.databaseUrl) return '<your key: explorer keys create --name me, with this DATABASE_URL>';
  return `<none yet: stop, run explorer keys create --name me --data-dir ${config.dataDir}, start again (or set EXPLORER_API_KEYS)>`;
}

/** What a new user needs to try the service right away. */
export function bannerText(config: Config, demo: DemoInfo | null, storedKeys = 0): string {
  const host = config.api.host === '0.0.0.0' ? '127.0.0.1' : config.api.host;
  const base = `http://${host}:${config.api.port}`;
  const key = demo?.key ?? keyHint(config, storedKeys);
  const chain = config.chains[0];
  const lines = [
    '',
    `  Explorer API   ${base}`,
    `  Web page       ${base}/`,
    `  API docs       ${base}/docs`,
    `  API key        ${key}`,
  ];
  if (chain) {
    const token = demo?.token ?? '<token address>';
    const miner = demo?.miner ?? '<miner address>';
    const apikey = demo ? key : '<key>';
    lines.push(
      // every chain served; the examples are the first's
      `  ${config.chains.length > 1 ? 'Chains ' : 'Chain  '}        ${config.chains.map((c) => c.chainId).join(', ')}${demo ? ` (local demo devnet at ${chain.rpcUrls[0]})` : ''}`,
      '',
      '  Try:',
      `  curl '${base}/${chain.chainId}/api/v2/tokens/${token}/holders?apikey=${apikey}&items_count=5'`,
      `  curl '${base}/${chain.chainId}/api/v2/addresses/${miner}/blocks-validated?apikey=${apikey}&items_count=5'`,
    );
  }
  return `${lines.join('\n')}\n\n`;
}
