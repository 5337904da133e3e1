#!/usr/bin/env node
import { Command } from 'commander';
import { ConfigError } from '../config/config.js';
import { DataDirInUseError } from '../db/data-dir-lock.js';
import { keysCommand } from './commands/keys.js';
import { restrictCommand } from './commands/restrict.js';
import { indexCommand, serveCommand, startCommand } from './commands/run.js';
import { migrateCommand } from './commands/migrate.js';
import { exportCommand } from './commands/export.js';

const program = new Command('explorer')
  .description('Self-hosted EVM explorer API: token holders and validated blocks')
  .showHelpAfterError();
program.addCommand(startCommand(), { isDefault: true });
program.addCommand(serveCommand());
program.addCommand(indexCommand());
program.addCommand(migrateCommand());
program.addCommand(keysCommand());
program.addCommand(restrictCommand());
program.addCommand(exportCommand());

program.parseAsync(process.argv).catch((error: unknown) => {
  if (error instanceof ConfigError || error instanceof DataDirInUseError) {
    process.stderr.write(`explorer: ${error.message}\n`);
  } else {
    process.stderr.write(`explorer: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  }
  process.exit(1);
});
