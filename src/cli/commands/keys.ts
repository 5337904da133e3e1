import { Command, InvalidArgumentError } from 'commander';
import { createApiKey, KEY_RATE_LIMIT_MAX, listApiKeys, revokeApiKey } from '../../db/queries/api-keys.js';
import { withRuntime, commonOptions } from '../with-runtime.js';
import { keyIdArgument, keyNameArgument } from '../arguments.js';
import { oneLine } from '../../db/text.js';

/** "25", "25/s" → 25 requests per second */
export function parseRateLimit(value: string): number {
  const match = /^(\d+)(?:\/s)?$/.exec(value.trim());
  const n = match ? Number(match[1]) : NaN;
  if (!Number.isInteger(n) || n < 1 || n > KEY_RATE_LIMIT_MAX) throw new InvalidArgumentError(`expected requests per second, 1 to ${KEY_RATE_LIMIT_MAX}, e.g. 25/s`);
  return n;
}

export function keysCommand(): Command {
  const keys = new Command('keys').description('manage API keys (stored hashed; the key is shown once)');
  commonOptions(keys.command('create').description('create a key and print it once'))
    .requiredOption('--name <name>', 'who or what the key is for', keyNameArgument)
    .option('--rate-limit <n/s>', 'requests per second for this key', parseRateLimit)
    .action(async (opts: { name: string; rateLimit?: number }, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        const { key, record } = await createApiKey(rt.db, opts.name, opts.rateLimit ?? null);
        process.stdout.write(`id ${record.id}  ${record.name}  rate limit ${record.rateLimit ?? rt.config.api.defaultRateLimit}/s\n${key}\n`);
        process.stderr.write('Store this key now: it is not shown again.\n');
      }),
    );
  commonOptions(keys.command('list').description('list the keys: id, prefix, name, rate limit, state'))
    .action(async (_opts: unknown, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        for (const k of await listApiKeys(rt.db)) {
          const state = k.revokedAt ? `revoked ${k.revokedAt.toISOString()}` : 'active';
          // (a key without its own limit shows the one it gets now, as `create` does)
          process.stdout.write(`${k.id}\t${k.prefix}…\t${oneLine(k.name)}\t${k.rateLimit ?? rt.config.api.defaultRateLimit}/s${k.rateLimit === null ? ' (default)' : ''}\t${state}\n`);
        }
      }),
    );
  commonOptions(keys.command('revoke').description('revoke a key: servers stop accepting it within 5 s').argument('<id>', 'key id from `keys list`', keyIdArgument))
    .action(async (id: number, _opts: unknown, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        const ok = await revokeApiKey(rt.db, id);
        if (!ok) {
          process.stderr.write(`explorer: no active key with id ${id}\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`revoked ${id}; servers stop accepting it within 5 s\n`);
      }),
    );
  return keys;
}
