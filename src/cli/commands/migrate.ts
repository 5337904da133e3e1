import { Command } from 'commander';
import { commonOptions, withRuntime } from '../with-runtime.js';

/** Opening the runtime applies pending migrations; this command does only that. */
export function migrateCommand(): Command {
  return commonOptions(new Command('migrate').description('apply database migrations and exit')).action(
    async (_opts: unknown, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        const applied = rt.migrationsApplied;
        process.stdout.write(
          applied.length === 0
            ? `database (${rt.db.engine}) was up to date: nothing applied\n`
            : `database (${rt.db.engine}): applied ${applied.length} migration${applied.length === 1 ? '' : 's'} (${applied.join(', ')}); up to date\n`,
        );
      }),
  );
}
