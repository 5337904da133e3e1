import { Command } from 'commander';
import { commonOptions, withRuntime } from '../with-runtime.js';

/** Opening the runtime applies pending migrations; this command does only that. */
export function migrateCommand(): Command {
  return commonOptions(new Command('migrate').description('apply database migrations and exit')).action(
    async (_opts: unknown, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        process.stdout.write(`database (${rt.db.engine}) is up to date\n`);
      }),
  );
}
