import { Command } from 'commander';
import { keysCommand } from './commands/keys.js';
import { restrictCommand } from './commands/restrict.js';
import { chainsCommand } from './commands/chains.js';
import { indexCommand, serveCommand, startCommand } from './commands/run.js';
import { migrateCommand } from './commands/migrate.js';
import { exportCommand } from './commands/export.js';
import { labelsCommand } from './commands/labels.js';

/** The `explorer` command and its subcommands, as main.ts runs them and tests inspect them. */
export function buildProgram(): Command {
  const program = new Command('explorer')
    .description('Self-hosted EVM explorer API: token holders and validated blocks')
    .option('--verbose', 'on an error, print its trace too')
    // usage errors are one line, like every other error (`--help` shows the usage)
    .configureOutput({ outputError: (text, write) => write(`explorer: ${text.replace(/^error: /, '')}`) });
  program.addCommand(startCommand(), { isDefault: true });
  program.addCommand(serveCommand());
  program.addCommand(indexCommand());
  program.addCommand(migrateCommand());
  program.addCommand(keysCommand());
  program.addCommand(restrictCommand());
  program.addCommand(chainsCommand());
  program.addCommand(exportCommand());
  program.addCommand(labelsCommand());
  // subcommands built on their own do not inherit the program's output settings
  const configure = (cmd: Command) => {
    cmd.configureOutput(program.configureOutput());
    cmd.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  // `start` is the default command, so a mistyped command would read as an argument of it
  // ("too many arguments for 'start'"): a first word that names no command is said to be one
  program.hook('preSubcommand', () => {
    const first = program.args[0];
    if (first !== undefined && !first.startsWith('-') && !program.commands.some((c) => c.name() === first)) {
      program.error(`unknown command '${first}' (commands: ${program.commands.map((c) => c.name()).join(', ')}; explorer --help)`);
    }
  });
  return program;
}
