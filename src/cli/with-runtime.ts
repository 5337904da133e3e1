import type { Command } from 'commander';
import { loadConfig, type ConfigFlags } from '../config/config.js';
import { createLogger, openRuntime, type Runtime } from './runtime.js';

const collect = (value: string, previous: string[] = []) => [...previous, value];

/** Options every command shares: where the data is and which chains. */
export function commonOptions(cmd: Command): Command {
  return cmd
    .option('--data-dir <dir>', 'embedded database directory (ignored when DATABASE_URL is set)', './.explorer')
    .option('--config <file>', 'JSON config file (flags and environment override it)')
    .option('--chain <chainId=rpcUrl[,fallbackUrl…]>', 'a chain to index/serve (repeatable)', collect);
}

/** Runs a short command (keys, migrate, …) with an open runtime, closing it afterwards. */
export async function withRuntime(cmd: Command, fn: (rt: Runtime) => Promise<void>): Promise<void> {
  const config = loadConfig(cmd.opts<ConfigFlags>());
  // Short commands print to the terminal; only warnings go to the log.
  const rt = await openRuntime(config, createLogger('warn'));
  try {
    await fn(rt);
  } finally {
    await rt.close();
  }
}
