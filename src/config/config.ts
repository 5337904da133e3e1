import { readConfigFile, type ConfigFile } from './config-file.js';
import { ConfigError, parseText, shownText, type Setting } from './setting.js';
import {
  apiSettings, chainSettings, chainsSetting, configFileSetting, rootSettings,
  type ApiSettings, type ChainEntryValue, type ChainSettings, type RootSettings,
} from './settings.js';

export { ConfigError } from './setting.js';

export interface ChainConfig extends ChainSettings {
  chainId: number;
  /** first is primary, the rest are fallbacks tried in order */
  rpcUrls: string[];
}

export type ApiConfig = ApiSettings;

export interface Config extends RootSettings {
  chains: ChainConfig[];
  api: ApiConfig;
}

/**
 * The CLI's options as commander gives them: already parsed by each setting's own parser, and
 * absent unless given (no CLI defaults, which would hide the environment and the file).
 */
export type ConfigFlags = Record<string, unknown>;

/** The commander attribute of a flag: `--data-dir <dir>` → `dataDir`. */
export const flagAttribute = (flag: string): string =>
  flag
    .split(' ')[0]!
    .replace(/^--/, '')
    .replace(/-([a-z])/g, (_m, c: string) => c.toUpperCase());

const copy = <T>(value: T): T => (typeof value === 'object' && value !== null ? structuredClone(value) : value);

/** Where values come from, most important first: flags, the environment, the file, defaults. */
class Sources {
  constructor(
    private readonly flags: ConfigFlags,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /** `fileValues`: the setting's values in the file, most specific first (a chain's entry, then the top level). */
  resolve<T>(s: Setting<T>, ...fileValues: unknown[]): T {
    const flag = s.flag === undefined ? undefined : this.flags[flagAttribute(s.flag)];
    if (flag !== undefined) return flag as T;
    const env = s.env === undefined ? undefined : this.env[s.env];
    // an empty variable counts as unset (`FOO=` in a compose file)
    if (env !== undefined && env !== '') {
      try {
        return parseText(s, env, 'env');
      } catch (error) {
        const shown = shownText(s, env);
        throw new ConfigError(`${s.env}${shown === null ? '' : `="${shown}"`}: ${(error as Error).message}`);
      }
    }
    const inFile = fileValues.find((v) => v !== undefined);
    return inFile !== undefined ? s.toValue(inFile as never) : copy(s.default);
  }

  group<G extends Record<string, Setting<unknown>>>(settings: G, ...files: Array<Record<string, unknown> | undefined>) {
    return Object.fromEntries(
      Object.entries(settings).map(([name, s]) => [name, this.resolve(s, ...files.map((f) => f?.[s.key]))]),
    ) as { -readonly [K in keyof G]: G[K] extends Setting<infer T> ? T : never };
  }
}

function chainConfigs(sources: Sources, file: ConfigFile): ChainConfig[] {
  const fileEntries = (file.chains ?? []) as ChainEntryValue[];
  // the chain list as a whole follows the precedence; the file's entry of a listed chain still
  // gives that chain's own settings
  const listed = sources.resolve(chainsSetting, file.chains);
  const seen = new Set<number>();
  return listed.map((entry) => {
    if (seen.has(entry.chainId)) throw new ConfigError(`chain ${entry.chainId} is configured twice`);
    seen.add(entry.chainId);
    const fromFile = fileEntries.find((e) => e.chainId === entry.chainId);
    const rpcUrls = entry.rpcUrls ?? fromFile?.rpcUrls;
    if (!rpcUrls?.length) throw new ConfigError(`chain ${entry.chainId}: no rpcUrls`);
    return { chainId: entry.chainId, rpcUrls, ...sources.group(chainSettings, fromFile, file) };
  });
}

/** The flags and the environment, and the config file they name (or none). */
function configSources(flags: ConfigFlags, env: NodeJS.ProcessEnv): { sources: Sources; file: ConfigFile } {
  const sources = new Sources(flags, env);
  const path = sources.resolve(configFileSetting);
  return { sources, file: path === null ? {} : readConfigFile(path) };
}

/** Flags > environment > config file > defaults, for every setting. */
export function loadConfig(flags: ConfigFlags, env: NodeJS.ProcessEnv = process.env): Config {
  const { sources, file } = configSources(flags, env);
  return {
    ...sources.group(rootSettings, file),
    chains: chainConfigs(sources, file),
    api: sources.group(apiSettings, file),
  };
}

/**
 * A chain the configuration does not list (the demo's devnet), with the per-chain settings that
 * the flags, the environment and the config file give every chain, as a listed chain gets them.
 */
export function unlistedChainConfig(flags: ConfigFlags, chainId: number, rpcUrls: string[], env: NodeJS.ProcessEnv = process.env): ChainConfig {
  const { sources, file } = configSources(flags, env);
  return { chainId, rpcUrls, ...sources.group(chainSettings, file) };
}

/** A chain's config with every per-chain setting at its default, for code that builds one itself. */
export function chainConfig(chainId: number, rpcUrls: string[], overrides: Partial<ChainSettings> = {}): ChainConfig {
  const defaults = new Sources({}, {}).group(chainSettings);
  return { chainId, rpcUrls, ...defaults, ...overrides };
}

/** The API's settings at their defaults. */
export const defaultApiConfig = (): ApiConfig => new Sources({}, {}).group(apiSettings);
