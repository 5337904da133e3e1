import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config/config.js';

/**
 * The key printed for the demo: the first of EXPLORER_API_KEYS when set, otherwise one made
 * on the first start and kept in the data directory, so a browser that saved it keeps working.
 */
export function demoKey(config: Config): string {
  const fromEnv = config.api.staticApiKeys[0];
  if (fromEnv) return fromEnv;
  const file = join(config.dataDir, 'devnet', 'demo-api-key');
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  mkdirSync(join(config.dataDir, 'devnet'), { recursive: true });
  const key = `demo_${randomBytes(16).toString('hex')}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return key;
}

/** What a new user needs to try the service right away, on stdout. */
export function printBanner(config: Config, demo: { token: string; miner: string } | null): void {
  const host = config.api.host === '0.0.0.0' ? '127.0.0.1' : config.api.host;
  const base = `http://${host}:${config.api.port}`;
  const key = config.api.staticApiKeys[0] ?? '<your key: explorer keys create --name me>';
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
    lines.push(
      `  Chain          ${chain.chainId}${demo ? ` (local demo devnet at ${chain.rpcUrls[0]})` : ''}`,
      '',
      '  Try:',
      `  curl '${base}/${chain.chainId}/api/v2/tokens/${token}/holders?apikey=${key}&items_count=5'`,
      `  curl '${base}/${chain.chainId}/api/v2/addresses/${miner}/blocks-validated?apikey=${key}&items_count=5'`,
    );
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);
}
