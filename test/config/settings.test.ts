import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Command } from 'commander';
import { afterAll, describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/cli/program.js';
import { ConfigError, flagAttribute, loadConfig, type Config } from '../../src/config/config.js';
import { ALL_SETTINGS, apiSettings, chainSettings, rootSettings } from '../../src/config/settings.js';
import { renderSettingsTable, TABLE_END, TABLE_START } from '../../src/config/settings-table.js';
import { REPO_ROOT } from '../support/contracts.js';

const A1 = '0x00000000000000000000000000000000000000a1';
const A2 = '0x00000000000000000000000000000000000000a2';
const A3 = '0x00000000000000000000000000000000000000a3';
const FILE_CHAIN = { chainId: 5, rpcUrls: ['http://file.example'] };

/** Every command that opens the database, by its path under `explorer`. */
const COMMANDS = [['start'], ['serve'], ['index'], ['migrate'], ['keys', 'create'], ['keys', 'list'], ['keys', 'revoke'], ['restrict', 'add'], ['restrict', 'remove'], ['restrict', 'list']];

interface Sample {
  flag?: string;
  env?: string;
  file?: unknown;
  /** the resolved value for a flag, an environment value, a file value, and none of them */
  expect: { flag?: unknown; env?: unknown; file?: unknown; none: unknown };
  read(config: Config): unknown;
}

const dir = mkdtempSync(join(tmpdir(), 'explorer-settings-'));
const configFile = (name: string, content: object) => {
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(content));
  return path;
};
const chain = (c: Config) => c.chains[0]!;

/** Three values per setting, one per source; every defined setting must have a row. */
const SAMPLES: Record<string, Sample> = {
  config: {
    flag: configFile('flag.json', { dataDir: '/from-flag-file' }),
    env: configFile('env.json', { dataDir: '/from-env-file' }),
    expect: { flag: '/from-flag-file', env: '/from-env-file', none: './.explorer' },
    read: (c) => c.dataDir,
  },
  dataDir: { flag: '/f', env: '/e', file: '/c', expect: { flag: '/f', env: '/e', file: '/c', none: './.explorer' }, read: (c) => c.dataDir },
  databaseUrl: {
    env: 'postgres://env/db', file: 'postgres://file/db',
    expect: { env: 'postgres://env/db', file: 'postgres://file/db', none: null }, read: (c) => c.databaseUrl,
  },
  databasePoolSize: { env: '7', file: 8, expect: { env: 7, file: 8, none: 10 }, read: (c) => c.databasePoolSize },
  writerLeaseMs: { env: '5000', file: 0, expect: { env: 5000, file: 0, none: 30_000 }, read: (c) => c.writerLeaseMs },
  logLevel: { env: 'debug', file: 'warn', expect: { env: 'debug', file: 'warn', none: 'info' }, read: (c) => c.logLevel },
  metricsPort: { flag: '9101', env: '9102', file: 9103, expect: { flag: 9101, env: 9102, file: 9103, none: null }, read: (c) => c.metricsPort },
  chains: {
    flag: '7=http://flag.example',
    env: '8=http://env.example|http://env2.example',
    file: [{ chainId: 9, rpcUrls: ['http://file.example'] }],
    expect: {
      flag: [[7, ['http://flag.example']]],
      env: [[8, ['http://env.example', 'http://env2.example']]],
      file: [[9, ['http://file.example']]],
      none: [],
    },
    read: (c) => c.chains.map((x) => [x.chainId, x.rpcUrls]),
  },
  startBlock: { flag: '11', env: '12', file: 13, expect: { flag: 11n, env: 12n, file: 13n, none: 0n }, read: (c) => chain(c).startBlock },
  reorgWindow: { flag: '21', env: '22', file: 23, expect: { flag: 21, env: 22, file: 23, none: 64 }, read: (c) => chain(c).reorgWindow },
  historyFromBlock: { flag: '31', env: '32', file: 33, expect: { flag: 31n, env: 32n, file: 33n, none: null }, read: (c) => chain(c).historyFromBlock },
  pollIntervalMs: { env: '300', file: 400, expect: { env: 300, file: 400, none: 1_000 }, read: (c) => chain(c).pollIntervalMs },
  elasticity: { env: '8', file: 6, expect: { env: 8, file: 6, none: 2 }, read: (c) => chain(c).elasticity },
  blockProducer: { env: 'clique', file: 'clique', expect: { env: 'clique', file: 'clique', none: 'miner' }, read: (c) => chain(c).blockProducer },
  rebasingTokens: { file: [A1.toUpperCase().replace('0X', '0x')], expect: { file: [A1], none: [] }, read: (c) => chain(c).rebasingTokens },
  rebasingSweepBatches: { file: 7, expect: { file: 7, none: 100 }, read: (c) => chain(c).rebasingSweepBatches },
  rpcConcurrency: { env: '3', file: 4, expect: { env: 3, file: 4, none: 8 }, read: (c) => chain(c).rpcConcurrency },
  rpcBatchSize: { env: '10', file: 20, expect: { env: 10, file: 20, none: 40 }, read: (c) => chain(c).rpcBatchSize },
  rpcRequestsPerSecond: { env: '25', file: 50, expect: { env: 25, file: 50, none: 0 }, read: (c) => chain(c).rpcRequestsPerSecond },
  maxBlocksPerRange: { file: 50, expect: { file: 50, none: 500 }, read: (c) => chain(c).maxBlocksPerRange },
  transfersPerRange: { file: 5_000, expect: { file: 5_000, none: 20_000 }, read: (c) => chain(c).transfersPerRange },
  wrappedNativeTokens: { file: [A2], expect: { file: [A2], none: [] }, read: (c) => chain(c).wrappedNativeTokens },
  blobSchedule: {
    file: [{ timestamp: 0, baseFeeUpdateFraction: 5_007_716 }],
    expect: { file: [{ timestamp: 0, baseFeeUpdateFraction: 5_007_716 }], none: null },
    read: (c) => chain(c).blobSchedule,
  },
  ens: { file: { registry: A1 }, expect: { file: { registry: A1 }, none: null }, read: (c) => chain(c).ens },
  // the keys; the two counts default to 0 and may be decimal strings past 2^53
  arbitrum: {
    file: { rollup: '0x00000000000000000000000000000000000000AA', parentRpcUrls: ['https://eth.example'], parentStartBlock: 5, messagesToBlocksShift: '22207817' },
    expect: {
      file: { rollup: '0x00000000000000000000000000000000000000aa', parentRpcUrls: ['https://eth.example'], parentStartBlock: 5n, messagesToBlocksShift: 22_207_817n },
      none: null,
    },
    read: (c) => chain(c).arbitrum,
  },
  host: { flag: '10.0.0.1', env: '10.0.0.2', file: '10.0.0.3', expect: { flag: '10.0.0.1', env: '10.0.0.2', file: '10.0.0.3', none: '127.0.0.1' }, read: (c) => c.api.host },
  port: { flag: '5001', env: '5002', file: 5003, expect: { flag: 5001, env: 5002, file: 5003, none: 4000 }, read: (c) => c.api.port },
  rateLimit: { env: '31', file: 32, expect: { env: 31, file: 32, none: 10 }, read: (c) => c.api.defaultRateLimit },
  apiKeys: { env: 'key-one-1, key-two-2', file: ['key-three-3'], expect: { env: ['key-one-1', 'key-two-2'], file: ['key-three-3'], none: [] }, read: (c) => c.api.staticApiKeys },
  adminKeys: { env: 'admin-one-1, admin-two-2', file: ['admin-three-3'], expect: { env: ['admin-one-1', 'admin-two-2'], file: ['admin-three-3'], none: [] }, read: (c) => c.api.adminKeys },
  restrictedKey: { env: 's1', file: 's2', expect: { env: 's1', file: 's2', none: null }, read: (c) => c.api.restrictedKey },
  restrictedAddresses: { env: A1, file: [A3], expect: { env: [A1], file: [A3], none: [] }, read: (c) => c.api.restrictedAddresses },
  trustProxy: { env: '10.0.0.0/8,::1', file: ['192.168.0.1'], expect: { env: ['10.0.0.0/8', '::1'], file: ['192.168.0.1'], none: [] }, read: (c) => c.api.trustProxy },
  corsOrigins: {
    env: 'https://a.example, http://127.0.0.1:3055', file: ['https://B.example'],
    expect: { env: ['https://a.example', 'http://127.0.0.1:3055'], file: ['https://b.example'], none: [] }, read: (c) => c.api.corsOrigins,
  },
  publicRateLimit: { env: '5', file: 6, expect: { env: 5, file: 6, none: null }, read: (c) => c.api.publicRateLimit },
  redisUrl: { env: 'redis://env:6379', file: 'redis://file:6379', expect: { env: 'redis://env:6379', file: 'redis://file:6379', none: null }, read: (c) => c.api.redisUrl },
  // 0 is a value, not an absence
  pageCacheMs: { env: '0', file: 5, expect: { env: 0, file: 5, none: 1_000 }, read: (c) => c.api.pageCacheMs },
  healthMaxLag: { env: '0', file: 7, expect: { env: 0, file: 7, none: 100 }, read: (c) => c.api.healthMaxLag },
  healthStaleMs: { env: '1500', file: 2500, expect: { env: 1_500, file: 2_500, none: 60_000 }, read: (c) => c.api.healthStaleMs },
  pageCacheMb: { env: '8', file: 16, expect: { env: 8, file: 16, none: 32 }, read: (c) => c.api.pageCacheMb },
  connectionTimeoutMs: { env: '0', file: 1_000, expect: { env: 0, file: 1_000, none: 30_000 }, read: (c) => c.api.connectionTimeoutMs },
  requestTimeoutMs: { env: '7000', file: 8_000, expect: { env: 7_000, file: 8_000, none: 10_000 }, read: (c) => c.api.requestTimeoutMs },
  headersTimeoutMs: { env: '2000', file: 3_000, expect: { env: 2_000, file: 3_000, none: 5_000 }, read: (c) => c.api.headersTimeoutMs },
  keepAliveTimeoutMs: { env: '65000', file: 1_000, expect: { env: 65_000, file: 1_000, none: 5_000 }, read: (c) => c.api.keepAliveTimeoutMs },
  shutdownDrainMs: { env: '0', file: 30_000, expect: { env: 0, file: 30_000, none: 5_000 }, read: (c) => c.api.shutdownDrainMs },
  maxConnections: { env: '50', file: 60, expect: { env: 50, file: 60, none: 1_024 }, read: (c) => c.api.maxConnections },
  statementTimeoutMs: { env: '0', file: 2_500, expect: { env: 0, file: 2_500, none: 5_000 }, read: (c) => c.api.statementTimeoutMs },
};

function command(path: readonly string[]): Command {
  return path.reduce<Command>((cmd, name) => cmd.commands.find((c) => c.name() === name)!, buildProgram());
}

/** The config a real command would run with, given these arguments and environment. */
function configOf(path: readonly string[], args: string[], env: NodeJS.ProcessEnv): Config {
  const cmd = command(path);
  cmd.parseOptions(args);
  return loadConfig(cmd.opts(), env);
}

const hasFlag = (path: readonly string[], flag: string) => command(path).options.some((o) => o.long === flag.split(' ')[0]);

let checks = 0;
function check(actual: unknown, expected: unknown, where: string): void {
  checks++;
  expect(actual, where).toEqual(expected);
}

describe('settings: one precedence rule, flag > environment > config file > default', () => {
  afterAll(() => console.log(`settings: ${ALL_SETTINGS.length} settings × ${COMMANDS.length} commands, ${checks} precedence checks`));

  it('every defined setting has a precedence sample, and names are unique', () => {
    expect(Object.keys(SAMPLES).sort()).toEqual(ALL_SETTINGS.map((s) => s.key).sort());
    for (const names of [ALL_SETTINGS.map((s) => s.key), ALL_SETTINGS.flatMap((s) => s.env ?? []), ALL_SETTINGS.flatMap((s) => (s.flag ? [flagAttribute(s.flag)] : []))]) {
      expect(new Set(names).size).toBe(names.length);
    }
  });

  for (const s of ALL_SETTINGS) {
    const sample = SAMPLES[s.key]!;
    it(`${s.key}: on every command`, () => {
      for (const path of COMMANDS) {
        const where = `explorer ${path.join(' ')}, ${s.key}`;
        const isChains = s.key === 'chains';
        // the file always lists a chain (per-chain settings need one) unless it is the sample
        const fileContent = (withSample: boolean) =>
          isChains
            ? { chains: withSample ? sample.file : undefined }
            : { chains: [FILE_CHAIN], ...(withSample && sample.file !== undefined ? { [s.key]: sample.file } : {}) };
        const withFile = s.key === 'config' ? [] : ['--config', configFile(`${s.key}.json`, fileContent(true))];
        const withoutFile = s.key === 'config' ? [] : ['--config', configFile(`${s.key}-none.json`, fileContent(false))];
        const env = s.env && sample.env !== undefined ? { [s.env]: sample.env } : {};
        const flag = s.flag && sample.flag !== undefined && hasFlag(path, s.flag) ? [s.flag.split(' ')[0]!, sample.flag] : null;
        if (flag) check(sample.read(configOf(path, [...flag, ...withFile], env)), sample.expect.flag, `${where}: flag`);
        if (s.env && sample.env !== undefined) check(sample.read(configOf(path, withFile, env)), sample.expect.env, `${where}: env`);
        if (sample.file !== undefined) check(sample.read(configOf(path, withFile, {})), sample.expect.file, `${where}: file`);
        check(sample.read(configOf(path, withoutFile, {})), sample.expect.none, `${where}: default`);
      }
    });
  }

  it('a per-chain setting: the chain\'s entry beats the file\'s top level, which applies to every chain', () => {
    const path = configFile('per-chain.json', {
      reorgWindow: 10,
      chains: [{ ...FILE_CHAIN, reorgWindow: 3 }, { chainId: 6, rpcUrls: ['http://six.example'] }],
    });
    expect(configOf(['index'], ['--config', path], {}).chains.map((c) => c.reorgWindow)).toEqual([3, 10]);
  });

  it('--chain replaces the file\'s list; the file\'s entry of a listed chain still gives its settings', () => {
    const path = configFile('listed.json', { chains: [{ ...FILE_CHAIN, startBlock: 99, wrappedNativeTokens: [A1] }, { chainId: 6, rpcUrls: ['http://x.example'] }] });
    const config = configOf(['index'], ['--config', path, '--chain', '5=http://flag.example'], {});
    expect(config.chains).toEqual([expect.objectContaining({ chainId: 5, rpcUrls: ['http://flag.example'], startBlock: 99n, wrappedNativeTokens: [A1] })]);
  });

  it('an empty environment variable counts as unset', () => {
    expect(configOf(['serve'], [], { PORT: '' }).api.port).toBe(4000);
  });

  it('the groups cover every setting once', () => {
    const grouped = [...Object.values(rootSettings), ...Object.values(apiSettings), ...Object.values(chainSettings)].map((s) => s.key);
    expect(grouped.sort()).toEqual(ALL_SETTINGS.map((s) => s.key).filter((k) => k !== 'config' && k !== 'chains').sort());
  });
});

describe('settings: bad values are errors that name the setting', () => {
  const bad = (file: object) => () => loadConfig({ config: configFile('bad.json', file) }, {});

  it('a typo in the config file names the key and the closest one', () => {
    expect(bad({ rateLimt: 5 })).toThrow(new ConfigError(`config file ${join(dir, 'bad.json')}: rateLimt: unknown key (did you mean rateLimit?)`));
    expect(bad({ chains: [{ ...FILE_CHAIN, reorgWindw: 5 }] })).toThrow(/chains\/0\/reorgWindw: unknown key \(did you mean reorgWindow\?\)/);
    // a misspelled required key is named as the typo, not only as the key now missing
    const arbitrum = { rollup: '0x5eF0D09d1E6204141B4d37530808eD19f60FBa35', parentRpcUrl: 'http://parent.example' };
    expect(bad({ chains: [{ ...FILE_CHAIN, arbitrum }] })).toThrow(/chains\/0\/arbitrum\/parentRpcUrl: unknown key \(did you mean parentRpcUrls\?\)/);
  });

  it('a wrong type or range names the key and what is expected', () => {
    expect(bad({ port: '4000' })).toThrow(/: port: expected an integer from 0 to 65535 \(got "4000"\)$/);
    expect(bad({ chains: [{ chainId: -1, rpcUrls: ['http://x.example'] }] })).toThrow(/chains\/0\/chainId: expected a chain id \(a positive integer\)/);
    expect(bad({ wrappedNativeTokens: ['0x12'] })).toThrow(/wrappedNativeTokens\/0: expected an address/);
    expect(bad({ databaseUrl: 'mysql://x' })).toThrow(/databaseUrl: expected a postgres:\/\/ URL$/);
  });

  it('an environment variable with a bad value is named, a secret one without its value', () => {
    expect(() => loadConfig({}, { PORT: 'abc' })).toThrow(new ConfigError('PORT="abc": expected an integer from 0 to 65535'));
    expect(() => loadConfig({}, { EXPLORER_CHAINS: '0=http://x' })).toThrow(/EXPLORER_CHAINS="0=http:\/\/x": 0\/chainId: expected a chain id/);
    expect(() => loadConfig({}, { DATABASE_URL: 'mysql://user:hunter2@db' })).toThrow(new ConfigError('DATABASE_URL: expected a postgres:// URL'));
  });

  it('the file must exist and be JSON', () => {
    expect(() => loadConfig({ config: join(dir, 'missing.json') }, {})).toThrow(/missing\.json: no such file/);
    writeFileSync(join(dir, 'broken.json'), '{"port": 1,');
    expect(() => loadConfig({ config: join(dir, 'broken.json') }, {})).toThrow(/broken\.json is not valid JSON/);
  });

  it('a chain given twice, or without RPC URLs, is refused', () => {
    expect(() => loadConfig({}, { EXPLORER_CHAINS: '1=http://a,1=http://b' })).toThrow(/chain 1 is configured twice/);
    expect(bad({ chains: [{ chainId: 3 }] })).toThrow(/chain 3: no rpcUrls/);
  });
});

describe('settings: README', () => {
  it('lists exactly the defined settings (run `npm run docs:settings` after changing one)', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const table = readme.slice(readme.indexOf(TABLE_START) + TABLE_START.length, readme.indexOf(TABLE_END)).trim();
    expect(table).toBe(renderSettingsTable());
  });
});
