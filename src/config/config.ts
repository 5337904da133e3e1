import { readFileSync } from 'node:fs';
import type { Hex } from '../db/rows.js';

export interface ChainConfig {
  chainId: number;
  /** first is primary, the rest are fallbacks tried in order */
  rpcUrls: string[];
  startBlock: bigint;
  /** blocks behind the head that may still be reorganised; deltas are kept this long */
  reorgWindow: number;
  /** EIP-1559 elasticity multiplier, for gas_target_percentage */
  elasticity: number;
  pollIntervalMs: number;
  /** tokens whose balances change without events: always reconciled with balanceOf */
  rebasingTokens: Hex[];
  /** WETH-like tokens whose Deposit/Withdrawal events mint and burn (others are detected) */
  wrappedNativeTokens?: Hex[];
}

export interface ApiConfig {
  host: string;
  port: number;
  /** requests per second per key, unless the key has its own */
  defaultRateLimit: number;
  /** keys from the environment, for deployments that need no key management */
  staticApiKeys: string[];
  restrictedKey: string | null;
  restrictedAddresses: Hex[];
  redisUrl: string | null;
  /** how long a served page may be reused while the indexed block is unchanged; 0: never */
  pageCacheMs?: number;
}

export interface Config {
  dataDir: string;
  databaseUrl: string | null;
  chains: ChainConfig[];
  api: ApiConfig;
  logLevel: string;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

export interface ConfigFlags {
  chain?: string[];
  port?: string | number;
  host?: string;
  dataDir?: string;
  config?: string;
  startBlock?: string;
  reorgWindow?: string;
}

/** Shape of the optional JSON config file (`--config`); flags and env override it. */
interface ConfigFile {
  dataDir?: string;
  databaseUrl?: string;
  port?: number;
  host?: string;
  rateLimit?: number;
  restrictedKey?: string;
  restrictedAddresses?: string[];
  redisUrl?: string;
  chains?: Array<{
    chainId: number;
    rpcUrls: string[];
    startBlock?: number | string;
    reorgWindow?: number;
    elasticity?: number;
    pollIntervalMs?: number;
    rebasingTokens?: string[];
  }>;
}

const HEX_ADDRESS = /^0x[0-9a-fA-F]{40}$/;

function addressList(values: readonly string[], what: string): Hex[] {
  return values.map((v) => {
    const a = v.trim();
    if (!HEX_ADDRESS.test(a)) throw new ConfigError(`${what}: "${a}" is not an address (0x + 40 hex digits)`);
    return a.toLowerCase() as Hex;
  });
}

function positiveInt(value: string | number | undefined, what: string, fallback: number): number {
  if (value === undefined || value === '') return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new ConfigError(`${what} must be a non-negative integer, got "${value}"`);
  return n;
}

const splitList = (v: string | undefined) => (v ? v.split(',').map((s) => s.trim()).filter(Boolean) : []);

/** `<chainId>=<rpcUrl>[,<fallbackUrl>…]` */
export function parseChainFlag(flag: string): { chainId: number; rpcUrls: string[] } {
  const eq = flag.indexOf('=');
  const id = Number(flag.slice(0, eq));
  const urls = splitList(flag.slice(eq + 1));
  if (eq < 1 || !Number.isInteger(id) || id <= 0 || urls.length === 0) {
    throw new ConfigError(`--chain expects <chainId>=<rpcUrl>[,<fallbackUrl>…], got "${flag}"`);
  }
  for (const url of urls) {
    if (!/^(https?|wss?):\/\//.test(url)) throw new ConfigError(`--chain ${id}: "${url}" is not an http(s) or ws(s) URL`);
  }
  return { chainId: id, rpcUrls: urls };
}

export function loadConfig(flags: ConfigFlags, env: NodeJS.ProcessEnv = process.env): Config {
  const file: ConfigFile = flags.config ? (JSON.parse(readFileSync(flags.config, 'utf8')) as ConfigFile) : {};
  const reorgWindow = positiveInt(flags.reorgWindow ?? env.EXPLORER_REORG_WINDOW, 'reorg window', 64);
  const chains = new Map<number, ChainConfig>();
  for (const c of file.chains ?? []) {
    chains.set(c.chainId, {
      chainId: c.chainId,
      rpcUrls: c.rpcUrls,
      startBlock: BigInt(c.startBlock ?? 0),
      reorgWindow: c.reorgWindow ?? reorgWindow,
      elasticity: c.elasticity ?? 2,
      pollIntervalMs: c.pollIntervalMs ?? 1_000,
      rebasingTokens: addressList(c.rebasingTokens ?? [], `chain ${c.chainId} rebasingTokens`),
    });
  }
  const chainFlags = flags.chain ?? splitList(env.EXPLORER_CHAINS).map((s) => s.replace(/\|/g, ','));
  for (const flag of chainFlags) {
    const { chainId, rpcUrls } = parseChainFlag(flag);
    const existing = chains.get(chainId);
    chains.set(chainId, {
      chainId,
      rpcUrls,
      startBlock: BigInt(positiveInt(flags.startBlock, '--start-block', Number(existing?.startBlock ?? 0))),
      reorgWindow: existing?.reorgWindow ?? reorgWindow,
      elasticity: existing?.elasticity ?? 2,
      pollIntervalMs: existing?.pollIntervalMs ?? positiveInt(env.EXPLORER_POLL_MS, 'EXPLORER_POLL_MS', 1_000),
      rebasingTokens: existing?.rebasingTokens ?? [],
    });
  }
  const port = positiveInt(flags.port ?? env.PORT ?? file.port, 'port', 4000);
  if (port > 65535) throw new ConfigError(`port must be at most 65535, got ${port}`);
  return {
    dataDir: flags.dataDir ?? env.EXPLORER_DATA_DIR ?? file.dataDir ?? './.explorer',
    databaseUrl: env.DATABASE_URL || file.databaseUrl || null,
    chains: [...chains.values()],
    logLevel: env.LOG_LEVEL ?? 'info',
    api: {
      host: flags.host ?? env.HOST ?? file.host ?? '127.0.0.1',
      port,
      defaultRateLimit: positiveInt(env.EXPLORER_RATE_LIMIT ?? file.rateLimit, 'EXPLORER_RATE_LIMIT', 10),
      staticApiKeys: splitList(env.EXPLORER_API_KEYS),
      restrictedKey: env.EXPLORER_RESTRICTED_KEY || file.restrictedKey || null,
      restrictedAddresses: addressList(
        [...splitList(env.EXPLORER_RESTRICTED_ADDRESSES), ...(file.restrictedAddresses ?? [])],
        'restricted addresses',
      ),
      redisUrl: env.REDIS_URL || file.redisUrl || null,
      pageCacheMs: positiveInt(env.EXPLORER_PAGE_CACHE_MS, 'EXPLORER_PAGE_CACHE_MS', 1_000),
    },
  };
}
