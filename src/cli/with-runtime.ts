import type { Command } from 'commander';
import { loadConfig } from '../config/config.js';
import type { Runtime } from './runtime.js';
import { settingOptions } from './setting-options.js';

/** Options every command that opens the database shares: where the data is, which chains. */
export const commonOptions = (cmd: Command): Command => settingOptions(cmd);

/** Runs a short command (keys, migrate, …) with an open runtime, closing it afterwards. */
export async function withRuntime(cmd: Command, fn: (rt: Runtime) => Promise<void>): Promise<void> {
  const config = loadConfig(cmd.opts());
  // imported here, not with the program (commands/run.ts says why)
  const { createLogger, openRuntime } = await import('./runtime.js');
  // Short commands print to the terminal; only warnings go to the log. None uses Redis.
  const rt = await openRuntime(config, createLogger('warn', config), false);
  try {
    await fn(rt);
  } finally {
    await rt.close();
  }
}
