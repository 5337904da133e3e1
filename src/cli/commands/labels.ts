import { Command, Option } from 'commander';
import type { Hex } from '../../db/rows.js';
import { listLabels } from '../../db/queries/labels.js';
import { toEntry } from '../../labels/entry.js';
import { formatOf, LabelFileError, type LabelFormat } from '../../labels/parse.js';
import { importLabels, readLabelsFile, removeLabelsOf } from '../../labels/store.js';
import { withRuntime, commonOptions } from '../with-runtime.js';
import { addressArgument, chainIdArgument } from '../arguments.js';

const LIST_PAGE = 1_000;

export function labelsCommand(): Command {
  const labels = new Command('labels').description(
    'operator labels of addresses: name, public and metadata tags, scam flag (README, "Labels")',
  );
  commonOptions(labels.command('import').argument('<file>', 'a JSON array of label entries, or CSV (.csv)'))
    .addOption(new Option('--format <format>', 'file format (default: by extension, .csv is CSV)').choices(['json', 'csv']))
    .action(async (file: string, opts: { format?: LabelFormat }, cmd: Command) => {
      // the whole file is checked before the database is opened: a bad file changes nothing
      let entries;
      try {
        entries = await readLabelsFile(file, opts.format ?? formatOf(file));
      } catch (error) {
        if (error instanceof LabelFileError) throw new Error(`${file}: ${error.message}; nothing was imported`, { cause: error });
        throw error;
      }
      await withRuntime(cmd, async (rt) => {
        await importLabels(rt.db, entries);
        process.stdout.write(`imported ${entries.length} label${entries.length === 1 ? '' : 's'}\n`);
      });
    });
  commonOptions(labels.command('list'))
    .option('--chain-id <id>', 'only this chain', chainIdArgument)
    .option('--address <address>', 'only this address', addressArgument)
    .description('prints the labels as a JSON array an import takes back')
    .action(async (opts: { chainId?: number; address?: Hex }, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        let after: { chainId: number; address: Hex } | undefined;
        let first = true;
        process.stdout.write('[');
        for (;;) {
          const page = await listLabels(rt.db, { chainId: opts.chainId, address: opts.address, after, limit: LIST_PAGE });
          for (const label of page) {
            process.stdout.write(`${first ? '' : ','}\n${JSON.stringify(toEntry(label))}`);
            first = false;
          }
          if (page.length < LIST_PAGE) break;
          const last = page[page.length - 1]!;
          after = { chainId: last.chainId, address: last.address };
        }
        process.stdout.write(first ? ']\n' : '\n]\n');
      }),
    );
  commonOptions(labels.command('remove').argument('<address>', 'address', addressArgument))
    .requiredOption('--chain-id <id>', 'the chain of the label', chainIdArgument)
    .action(async (address: Hex, opts: { chainId: number }, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        const removed = await removeLabelsOf(rt.db, [{ chainId: opts.chainId, address }]);
        if (removed === 0) {
          process.stderr.write(`${address} has no label on chain ${opts.chainId}\n`);
          process.exitCode = 1;
          return;
        }
        process.stdout.write(`removed the label of ${address} on chain ${opts.chainId}\n`);
      }),
    );
  return labels;
}
