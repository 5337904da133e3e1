import { InvalidArgumentError, Option, type Command } from 'commander';
import { ConfigError } from '../config/config.js';
import { parseText, shownText, type Setting } from '../config/setting.js';
import { ALL_SETTINGS } from '../config/settings.js';

/** What a command does, which decides the settings it takes as flags. */
export type CommandRole = 'server' | 'indexer';

/** The default as --help and README show it. */
export function defaultText(s: Setting<unknown>): string {
  if (s.defaultText !== undefined) return s.defaultText;
  return s.default === null ? 'none' : String(s.default);
}

function describe(s: Setting<unknown>): string {
  return `${s.help.replace(/`/g, '')} (${s.env ? `env ${s.env}, ` : ''}default: ${defaultText(s).replace(/`/g, '')})`;
}

/** Commander parses and checks each flag with the setting's own parser; a bad value is its usage error. */
function argParser(s: Setting<unknown>) {
  return (value: string, previous: unknown) => {
    let parsed: unknown;
    try {
      parsed = parseText(s, value, 'flag');
    } catch (error) {
      // commander's usage error quotes the argument as given: a setting whose text may carry
      // secrets is refused in our own words instead (`explorer: …`, as the environment's)
      const shown = shownText(s, value);
      if (shown !== value) throw new ConfigError(`${s.flag!.split(' ')[0]}${shown === null ? '' : ` "${shown}"`}: ${(error as Error).message}`);
      throw new InvalidArgumentError((error as Error).message);
    }
    return s.repeatable && Array.isArray(previous) && Array.isArray(parsed) ? [...previous, ...parsed] : parsed;
  };
}

/**
 * Adds the flags of the settings this command uses. None gets a CLI default: an absent flag
 * leaves the value to the environment, the config file, then the setting's default.
 */
export function settingOptions(cmd: Command, roles: readonly CommandRole[] = []): Command {
  for (const s of ALL_SETTINGS) {
    if (s.flag === undefined) continue;
    const scope = s.flagScope ?? 'all';
    if (scope !== 'all' && !roles.includes(scope)) continue;
    cmd.addOption(new Option(s.flag, describe(s)).argParser(argParser(s)));
  }
  return cmd;
}
