import { Command } from 'commander';
import type { Hex } from '../../db/rows.js';
import { addRestrictedAddress, listRestrictedAddresses, removeRestrictedAddress } from '../../db/queries/restricted.js';
import { withRuntime, commonOptions } from '../with-runtime.js';
import { addressArgument as address, chainIdArgument } from '../arguments.js';

/** chain id 0 in restricted_addresses: the address is restricted on every chain */
const ALL_CHAINS = 0;

const chainOption = (cmd: Command) => cmd.option('--chain-id <id>', 'only on this chain (default: every chain)', chainIdArgument);

export function restrictCommand(): Command {
  const restrict = new Command('restrict').description(
    'restricted addresses: answered with 403 unless the request carries key=<EXPLORER_RESTRICTED_KEY>',
  );
  chainOption(commonOptions(restrict.command('add').argument('<address>', 'address', address))).action(
    async (a: Hex, opts: { chainId?: number }, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        await addRestrictedAddress(rt.db, a, opts.chainId ?? ALL_CHAINS);
        process.stdout.write(`restricted ${a}${opts.chainId ? ` on chain ${opts.chainId}` : ''}\n`);
      }),
  );
  chainOption(commonOptions(restrict.command('remove').argument('<address>', 'address', address))).action(
    async (a: Hex, opts: { chainId?: number }, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        const chainId = opts.chainId ?? ALL_CHAINS;
        if (await removeRestrictedAddress(rt.db, a, chainId)) {
          process.stdout.write(`removed ${a}\n`);
          return;
        }
        // restricted elsewhere: the entry to remove is another chain's (or every chain's)
        const others = (await listRestrictedAddresses(rt.db)).filter((r) => r.address === a.toLowerCase()).map((r) => r.chainId);
        const where = (id: number) => (id === ALL_CHAINS ? 'on every chain (remove it without --chain-id)' : `on chain ${id} (--chain-id ${id})`);
        process.stdout.write(
          others.length === 0 ? `${a} was not restricted\n` : `${a} was not restricted ${chainId === ALL_CHAINS ? 'on every chain' : `on chain ${chainId}`}; it is ${others.map(where).join(', ')}\n`,
        );
      }),
  );
  commonOptions(restrict.command('list')).action(async (_o: unknown, cmd: Command) =>
    withRuntime(cmd, async (rt) => {
      for (const r of await listRestrictedAddresses(rt.db)) {
        process.stdout.write(`${r.address}\t${r.chainId === 0 ? 'all chains' : `chain ${r.chainId}`}\n`);
      }
    }),
  );
  return restrict;
}
