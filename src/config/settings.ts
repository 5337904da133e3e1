import { InvalidArgumentError } from 'commander';
import { Type } from '@sinclair/typebox';
import {
  addressList, blockNumber, choice, integer, integerOrOff, listFromText, optional, RPC_URL, setting, text, textList, type Kind, type Setting, type Values,
} from './setting.js';
import { API_KEY_FORMAT_TEXT, API_KEY_MAX_LENGTH, API_KEY_MIN_LENGTH, API_KEY_PATTERN, MAX_PARAMETER_LENGTH } from '../api/limits.js';
import { blobScheduleKind } from './blob-schedule.js';
import { ensKind } from './ens.js';
import { arbitrumSettlementKind } from '../chains/arbitrum/config.js';
import { BLOCK_PRODUCERS, type BlockProducer } from '../evm/block-producer.js';
import { redactUrls } from '../rpc/redact-url.js';

/**
 * Every setting of the service, each defined once. Adding one is one entry here (and its use):
 * the CLI options, the precedence, the config file's schema and README's table follow.
 */

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

export const chainId: Kind<number> = {
  ...integer(1, Number.MAX_SAFE_INTEGER),
  schema: Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER, errorMessage: 'a chain id (a positive integer)' }),
};


// scheme://[userinfo@]host[:port][/path?query]: a port that is not digits is refused here, with
// the setting's name, rather than by the driver's bare "Invalid URL" at connect time
const urlOf = (schemes: string, what: string): Kind<string> =>
  text({ pattern: `^(${schemes})://([^\\s/@]*@)?(\\[[0-9A-Fa-f:.]+\\]|[^\\s/:@?#\\[\\]]*)(:[0-9]{1,5})?([/?#][^\\s]*)?$`, errorMessage: what });

/** API keys of the environment or the file: each of the format a request may present (api/limits.ts). */
const apiKeyList: Kind<string[]> = {
  ...textList,
  schema: Type.Array(
    Type.String({
      minLength: API_KEY_MIN_LENGTH,
      maxLength: API_KEY_MAX_LENGTH,
      pattern: API_KEY_PATTERN.source,
      errorMessage: API_KEY_FORMAT_TEXT,
    }),
    { maxItems: 100_000 },
  ),
};

/**
 * Browser origins as a browser sends them in `Origin`: scheme, host and an optional port, no
 * path, no trailing slash (compared exactly, so `https://a.example/` would never match).
 */
/** IPv4 or IPv6 addresses, each optionally a CIDR range */
const proxyList: Kind<string[]> = {
  // the prefix length within the address's own bits (/0–32 for IPv4, /0–128 for IPv6), or the
  // proxy check would refuse it at start without naming the setting
  schema: Type.Array(
    Type.String({
      pattern: '^(([0-9]{1,3}\\.){3}[0-9]{1,3}(/([0-9]|[12][0-9]|3[0-2]))?|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*(/([0-9]|[1-9][0-9]|1[01][0-9]|12[0-8]))?)$',
      maxLength: 49,
      errorMessage: 'an IP address or CIDR range, e.g. 10.0.0.0/8',
    }),
    { maxItems: 1_000 },
  ),
  fromText: listFromText,
  toValue: (v: string[]) => v,
};

const originList: Kind<string[]> = {
  schema: Type.Array(
    Type.String({ pattern: '^https?://[^\\s/?#]+$', maxLength: 2_048, errorMessage: 'an origin: http(s)://host[:port], no path' }),
    { maxItems: 1_000 },
  ),
  fromText: listFromText,
  toValue: (v: string[]) => v.map((o) => o.toLowerCase()),
};

// ---------------------------------------------------------------------------------------------

/** The data and the process: what every command needs. */
export const rootSettings = {
  dataDir: setting({
    key: 'dataDir', flag: '--data-dir <dir>', flagScope: 'all', env: 'EXPLORER_DATA_DIR', default: './.explorer',
    ...text(), help: 'embedded database (PGlite) directory; not used with `databaseUrl`',
  }),
  databaseUrl: setting({
    key: 'databaseUrl', env: 'DATABASE_URL', default: null, secret: true,
    ...optional(urlOf('postgres|postgresql', 'a postgres:// URL')),
    help: 'PostgreSQL instead of the embedded PGlite (same migrations, same queries)',
  }),
  databasePoolSize: setting({
    key: 'databasePoolSize', env: 'EXPLORER_DB_POOL_SIZE', default: 10, ...integer(1, 1_000),
    help: 'PostgreSQL connections per pool; a process opens up to three pools (writes, reads with a statement timeout, prepared page reads), so `serve` holds up to 3 × this under load',
  }),
  writerLeaseMs: setting({
    key: 'writerLeaseMs', env: 'EXPLORER_WRITER_LEASE_MS', default: 30_000, ...integerOrOff(5_000, 3_600_000),
    help: 'PostgreSQL: an `explorer index` that stops answering for this long (a frozen process, a paused VM) loses its chains to one waiting to take over: the server ends its writer lock\'s connection and any transaction of its left open; a healthy one speaks every second (0: never; the lock is then held until its connection closes)',
  }),
  logLevel: setting({ key: 'logLevel', env: 'LOG_LEVEL', default: 'info', ...choice(LOG_LEVELS), help: `log level: ${LOG_LEVELS.join(', ')}` }),
  metricsPort: setting({
    key: 'metricsPort', flag: '--metrics-port <port>', flagScope: 'indexer', env: 'EXPLORER_METRICS_PORT', default: null, defaultText: 'none',
    ...optional(integer(1, 65_535)),
    help: 'also serve /metrics on this port, on `host`: how `explorer index`, which has no API port, shows its series',
  }),
};

/** The API server. */
export const apiSettings = {
  host: setting({ key: 'host', flag: '--host <host>', flagScope: 'server', env: 'HOST', default: '127.0.0.1', ...text(), help: 'HTTP listen address' }),
  port: setting({ key: 'port', flag: '--port <port>', flagScope: 'server', env: 'PORT', default: 4000, ...integer(0, 65_535), help: 'HTTP port' }),
  defaultRateLimit: setting({
    key: 'rateLimit', env: 'EXPLORER_RATE_LIMIT', default: 10, ...integer(1),
    help: 'requests per second per key, for keys without their own limit',
  }),
  staticApiKeys: setting({
    key: 'apiKeys', env: 'EXPLORER_API_KEYS', default: [], defaultText: 'none', secret: true, ...apiKeyList,
    help: `static API keys for deployments without key management (comma-separated in the environment), each ${API_KEY_FORMAT_TEXT}`,
  }),
  adminKeys: setting({
    key: 'adminKeys', env: 'EXPLORER_ADMIN_KEYS', default: [], defaultText: 'none (admin API off)', secret: true, ...apiKeyList,
    help: `keys of the admin API (\`/api/v2/admin/…\`: labels and API keys), comma-separated in the environment, each ${API_KEY_FORMAT_TEXT}; no other key opens it`,
  }),
  restrictedKey: setting({
    key: 'restrictedKey', env: 'EXPLORER_RESTRICTED_KEY', default: null, defaultText: 'none', secret: true,
    ...optional(text({ maxLength: MAX_PARAMETER_LENGTH })),
    help: `the \`key\` query value that opens restricted addresses (at most ${MAX_PARAMETER_LENGTH} characters)`,
  }),
  trustProxy: setting({
    key: 'trustProxy', env: 'EXPLORER_TRUST_PROXY', default: [], defaultText: 'none', ...proxyList,
    help: 'addresses or CIDR ranges of your load balancers, comma-separated (e.g. `10.0.0.0/8`): behind them the client address, which per-address limits and the log use, is read from `X-Forwarded-For`; without it every client behind one balancer shares one address',
  }),
  corsOrigins: setting({
    key: 'corsOrigins', env: 'EXPLORER_CORS_ORIGINS', default: [], defaultText: 'none', ...originList,
    help: 'browser origins allowed to read the API\'s answers (CORS), comma-separated, e.g. `https://explorer.example`; others get no CORS headers',
  }),
  publicRateLimit: setting({
    key: 'publicRateLimit', env: 'EXPLORER_PUBLIC_RATE_LIMIT', default: null, defaultText: 'off', ...optional(integer(1, 1_000_000)),
    help: 'keyless mode: a request without an API key from a `corsOrigins` origin is served within this many requests per second per client address (off: every request needs a key); restricted addresses still need the `key` secret',
  }),
  restrictedAddresses: setting({
    key: 'restrictedAddresses', env: 'EXPLORER_RESTRICTED_ADDRESSES', default: [], defaultText: 'none', ...addressList,
    help: 'restricted path addresses, on every chain (also `explorer restrict add`)',
  }),
  redisUrl: setting({
    key: 'redisUrl', env: 'REDIS_URL', default: null, defaultText: 'none', secret: true,
    ...optional(urlOf('rediss?', 'a redis:// or rediss:// URL')),
    help: 'share rate-limit counters between API processes; while Redis is down or hung (250 ms), each process counts its own (logged once a minute)',
  }),
  pageCacheMs: setting({
    key: 'pageCacheMs', env: 'EXPLORER_PAGE_CACHE_MS', default: 1_000, ...integer(0, 3_600_000),
    help: 'how long a served page may be reused while the chain\'s indexed block is unchanged (0: off)',
  }),
  pageCacheMb: setting({
    key: 'pageCacheMb', env: 'EXPLORER_PAGE_CACHE_MB', default: 32, ...integer(1, 1_048_576),
    help: 'memory the page cache may take, in MiB: keys, bodies and per-entry overhead all count',
  }),
  connectionTimeoutMs: setting({
    key: 'connectionTimeoutMs', env: 'EXPLORER_CONNECTION_TIMEOUT_MS', default: 30_000, ...integer(0, 3_600_000),
    help: 'a connection with no bytes either way for this long is closed (0: never)',
  }),
  requestTimeoutMs: setting({
    key: 'requestTimeoutMs', env: 'EXPLORER_REQUEST_TIMEOUT_MS', default: 10_000, ...integer(0, 3_600_000),
    help: 'time a client has to send a whole request (0: no limit)',
  }),
  headersTimeoutMs: setting({
    key: 'headersTimeoutMs', env: 'EXPLORER_HEADERS_TIMEOUT_MS', default: 5_000, ...integer(0, 3_600_000),
    help: 'time a client has to send a request\'s headers, at most `requestTimeoutMs`; a slow client gets 408 (0: no limit)',
  }),
  keepAliveTimeoutMs: setting({
    key: 'keepAliveTimeoutMs', env: 'EXPLORER_KEEP_ALIVE_TIMEOUT_MS', default: 5_000, ...integer(1, 3_600_000),
    help: 'an idle keep-alive connection is closed after this long; behind a load balancer that reuses connections, set it above the balancer\'s idle timeout (65000 behind one that idles at 60 s)',
  }),
  shutdownDrainMs: setting({
    key: 'shutdownDrainMs', env: 'EXPLORER_SHUTDOWN_DRAIN_MS', default: 5_000, ...integer(0, 600_000),
    help: 'on SIGTERM the API goes on serving while `/health` answers 503, until no request but `/health` has come for a second or this long has passed, then stops (time for a load balancer to take it out of rotation; SIGINT, a second signal or 0: stop at once)',
  }),
  maxConnections: setting({
    key: 'maxConnections', env: 'EXPLORER_MAX_CONNECTIONS', default: 1_024, ...integer(1, 1_000_000),
    help: 'connections beyond this many are closed as they arrive',
  }),
  statementTimeoutMs: setting({
    key: 'statementTimeoutMs', env: 'EXPLORER_STATEMENT_TIMEOUT_MS', default: 5_000, ...integer(0, 3_600_000),
    help: 'PostgreSQL: a statement serving a request is cancelled after this long and answered 503; the indexer\'s have none. PGlite has no equivalent (0: no limit)',
  }),
  healthMaxLag: setting({
    key: 'healthMaxLag', env: 'EXPLORER_HEALTH_MAX_LAG', default: 100, ...integer(0),
    help: '`/health` is degraded (503) when a chain\'s indexer is more blocks than this behind the node (0: never)',
  }),
  healthStaleMs: setting({
    key: 'healthStaleMs', env: 'EXPLORER_HEALTH_STALE_MS', default: 60_000, ...integer(0),
    help: '`/health` is degraded (503) when a chain\'s indexer has not checked in (reached its node and started a step) for this long (0: never)',
  }),
};

/** Per chain: in each entry of the file's `chains`, or at its top level for every chain. */
export const chainSettings = {
  startBlock: setting({
    key: 'startBlock', flag: '--start-block <n>', flagScope: 'indexer', env: 'EXPLORER_START_BLOCK', default: 0n, defaultText: '`0`',
    ...blockNumber, help: 'first block to index; above 0, a token created before it lists only the holders that moved since (README, "Starting past block 0")',
  }),
  reorgWindow: setting({
    key: 'reorgWindow', flag: '--reorg-window <n>', flagScope: 'indexer', env: 'EXPLORER_REORG_WINDOW', default: 64,
    ...integer(0, 100_000), help: 'blocks behind the head that may still be reorganised; their balance changes are kept',
  }),
  historyFromBlock: setting({
    key: 'historyFromBlock', flag: '--history-from-block <n>', flagScope: 'indexer', env: 'EXPLORER_HISTORY_FROM_BLOCK', default: null,
    defaultText: 'none (keep every block\'s balances)', ...optional(blockNumber),
    help: 'balance history below this block is pruned (each balance keeps its value there); holders at an earlier block are refused with 422',
  }),
  pollIntervalMs: setting({
    key: 'pollIntervalMs', env: 'EXPLORER_POLL_MS', default: 1_000, ...integer(10, 3_600_000),
    help: 'how often the indexer asks the node for a new head',
  }),
  elasticity: setting({
    key: 'elasticity', env: 'EXPLORER_ELASTICITY', default: 2, ...integer(1, 1_000),
    help: 'EIP-1559 elasticity multiplier (it shapes `gas_target_percentage`): 2 on Ethereum, 6 on OP Mainnet; a block whose header names its own (OP stack since Holocene, in `extraData`) is measured with that one',
  }),
  blockProducer: setting<BlockProducer>({
    key: 'blockProducer', env: 'EXPLORER_BLOCK_PRODUCER', default: 'miner', ...choice(BLOCK_PRODUCERS),
    help: 'whose blocks the chain\'s are (`miner` in the block object, the blocks-validated operation): `miner`, the header\'s field; `clique`, the signer of the Clique seal in `extraData`, for chains whose `miner` is the zero address (geth Clique PoA, Polygon PoS), whose clients pay the signer the fees (see "Clique chains")',
  }),
  rebasingTokens: setting({
    key: 'rebasingTokens', default: [], defaultText: 'none', ...addressList,
    help: 'tokens whose balances change without events (stETH-like), reconciled with `balanceOf`: the holders a batch touches, and a rolling sweep over all their holders (below)',
  }),
  rebasingSweepBatches: setting({
    key: 'rebasingSweepBatches', default: 100, ...integer(1, 1_000_000),
    help: 'a sweep over every holder of the rebasing tokens takes at most this many batches: a balance changed without an event is correct at most twice this many batches later',
  }),
  wrappedNativeTokens: setting({
    key: 'wrappedNativeTokens', default: [], defaultText: 'none', ...addressList,
    help: 'WETH-like tokens whose `Deposit`/`Withdrawal` events mint and burn (others are recognised when they answer `totalSupply()` and `decimals()`; a wrap its token also says with a `Transfer` from or to the zero address counts once)',
  }),
  rpcConcurrency: setting({
    key: 'rpcConcurrency', env: 'EXPLORER_RPC_CONCURRENCY', default: 8, ...integer(1, 1_000),
    help: 'HTTP requests (batches) in flight at once to each of the chain\'s RPC URLs; the indexer fetches far enough ahead to keep them all busy, which hides a remote node\'s latency',
  }),
  rpcBatchSize: setting({
    key: 'rpcBatchSize', env: 'EXPLORER_RPC_BATCH_SIZE', default: 40, ...integer(1, 10_000),
    help: 'JSON-RPC calls per HTTP request, at most (a block costs 2 or 3: the block, its receipts, its traces where the node has them). A URL that refuses a batch for its size (by calls or by the bytes of the answer) gets smaller ones from then on, logged at warn',
  }),
  rpcRequestsPerSecond: setting({
    key: 'rpcRequestsPerSecond', env: 'EXPLORER_RPC_REQUESTS_PER_SECOND', default: 0, ...integer(0, 1_000_000),
    help: 'JSON-RPC calls per second to each RPC URL, each call of a batch counting as one as providers count them (0: no cap). A 429 or a JSON-RPC "limit exceeded" holds requests back for its Retry-After and halves the rate (without a cap, never below one batch a second); it climbs back by a tenth of the cap for each second without one. The block pipeline goes before the background work (contract checks, token metadata). Bursts: any one second may see the cap plus a quarter of it, or plus one batch where that is more, so under a provider\'s hard cap leave a batch\'s room (or lower `rpcBatchSize`)',
  }),
  maxBlocksPerRange: setting({
    key: 'maxBlocksPerRange', default: 500, ...integer(1, 100_000),
    help: 'most blocks fetched and written as one range (one database transaction); ranges are sized to hold about `transfersPerRange` transfers',
  }),
  transfersPerRange: setting({
    key: 'transfersPerRange', default: 20_000, ...integer(1, 10_000_000),
    help: 'token transfers a range aims at: larger ranges write faster and hold more memory while they are fetched ahead and written',
  }),
  blobSchedule: setting({
    key: 'blobSchedule', default: null, defaultText: 'built in for Ethereum mainnet, Sepolia, Holesky, Hoodi; EIP-4844\'s for other chains',
    ...blobScheduleKind,
    help: 'EIP-4844 blob parameters by fork, which price `blob_gas_price`: `[{"timestamp": <activation, unix s>, "baseFeeUpdateFraction": <n>}, …]` in ascending time (see "Blob fees")',
  }),
  ens: setting({
    key: 'ens', default: null, defaultText: 'mainnet\'s registry on chain 1, off elsewhere',
    ...ensKind,
    help: 'ENS primary names (`ens_domain_name`) from this registry\'s and its resolvers\' events: `{"registry": "0x…"}`, or `false` for none',
  }),
  arbitrum: setting({
    key: 'arbitrum', default: null, defaultText: 'none (settlement fields stay `null`)',
    ...arbitrumSettlementKind,
    help: 'an Arbitrum chain\'s settlement on its parent chain: `{"rollup": <address>, "parentRpcUrls": [<url>, …], "parentStartBlock": <n>, "messagesToBlocksShift": <n>}` (see "Arbitrum settlement")',
  }),
};

// ---------------------------------------------------------------------------------------------
// The chains themselves

/** One entry of the file's `chains`; a flag or the environment gives only the first two keys. */
export const ChainEntry = Type.Object(
  {
    chainId: chainId.schema,
    rpcUrls: Type.Optional(Type.Array(RPC_URL, { minItems: 1, maxItems: 64 })),
    ...Object.fromEntries(Object.values(chainSettings).map((s) => [s.key, Type.Optional(s.schema)])),
  },
  { additionalProperties: false },
);

export interface ChainEntryValue {
  chainId: number;
  rpcUrls?: string[];
  [perChainKey: string]: unknown;
}

/** `<chainId>=<rpcUrl>[,<fallbackUrl>…]` → the entry's shape (its values are checked after). */
function chainFromText(flag: string): ChainEntryValue {
  const eq = flag.indexOf('=');
  if (eq < 1) throw new InvalidArgumentError(`expected <chainId>=<rpcUrl>[,<fallbackUrl>…], got "${flag}"`);
  const id = flag.slice(0, eq).trim();
  const urls = flag
    .slice(eq + 1)
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  return { chainId: /^\d+$/.test(id) ? Number(id) : (id as unknown as number), rpcUrls: urls };
}

export const chainsSetting = setting<ChainEntryValue[]>({
  key: 'chains',
  flag: '--chain <chainId=rpcUrl[,fallbackUrl…]>',
  flagScope: 'all',
  repeatable: true,
  env: 'EXPLORER_CHAINS',
  default: [],
  defaultText: 'none (`start`: a local demo chain)',
  help: 'the chains to index, with fallback RPC URLs; repeat the flag for several. In the environment, chains are separated by `,` and a chain\'s URLs by `|`. The file\'s entries also hold per-chain settings',
  // RPC URLs carry credentials and provider keys: an error shows their origins only
  shown: redactUrls,
  schema: Type.Array(ChainEntry, { maxItems: 1_000 }),
  fromText: (t) => [chainFromText(t)],
  fromEnv: (t) =>
    t
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((s) => chainFromText(s.replace(/\|/g, ','))),
  toValue: (v: ChainEntryValue[]) => v,
});

/** Where the config file is: a setting of its own, so not in the file. */
export const configFileSetting = setting<string | null>({
  key: 'config', flag: '--config <file>', flagScope: 'all', env: 'EXPLORER_CONFIG', default: null, defaultText: 'none',
  ...optional(text()), help: 'JSON config file with any of these settings (flags and the environment override it)',
});

export type RootSettings = Values<typeof rootSettings>;
export type ApiSettings = Values<typeof apiSettings>;
export type ChainSettings = Values<typeof chainSettings>;

/** Every setting, in README's order. */
export const ALL_SETTINGS: ReadonlyArray<Setting<unknown>> = [
  configFileSetting,
  ...Object.values(rootSettings),
  chainsSetting,
  ...Object.values(chainSettings),
  ...Object.values(apiSettings),
] as ReadonlyArray<Setting<unknown>>;

/** The config file: every setting but `config`, all optional; an unknown key is an error. */
export const ConfigFileSchema = Type.Object(
  Object.fromEntries(ALL_SETTINGS.filter((s) => s !== configFileSetting).map((s) => [s.key, Type.Optional(s.schema)])),
  { additionalProperties: false },
);
