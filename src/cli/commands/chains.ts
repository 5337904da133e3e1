import { Command } from 'commander';
import { listChains } from '../../db/queries/chains.js';
import { removeChain } from '../../db/queries/remove-chain.js';
import { asChainWriter } from '../../indexer/writer-lock.js';
import { withRuntime, commonOptions } from '../with-runtime.js';
import { chainIdArgument } from '../arguments.js';

const orNone = (v: bigint | null) => (v === null ? '-' : v.toString());

export function chainsCommand(): Command {
  const chains = new Command('chains').description('the chains this database holds: list them; remove one to index it afresh or retire it');
  commonOptions(chains.command('list').description('chain id, indexed block, node head, state, and blockProducer where it is not miner'))
    .action(async (_opts: unknown, cmd: Command) =>
      withRuntime(cmd, async (rt) => {
        for (const c of await listChains(rt.db)) {
          const state = c.failingSince !== null ? `failing since ${c.failingSince.toISOString()} (${c.failure})` : c.backfilling ? 'backfilling' : 'ok';
          // said only where it is not the default: a Clique chain's, or one indexed with both
          const producer = c.blockProducer == null || c.blockProducer === 'miner' ? '' : `\tblockProducer ${c.blockProducer}`;
          process.stdout.write(`${c.chainId}\tindexed ${orNone(c.indexedBlock)}\thead ${orNone(c.headBlock)}\t${state}${producer}\n`);
        }
      }),
    );
  commonOptions(
    chains
      .command('remove')
      .description("delete everything indexed for a chain (blocks, balances, history, tokens, addresses, settlement data) in one transaction; its labels and restricted addresses stay. Refused while a process indexes it")
      .argument('<chain-id>', 'the chain to remove', chainIdArgument)
      .option('--yes', 'really delete (without it, nothing is done)'),
  ).action(async (chainId: number, opts: { yes?: boolean }, cmd: Command) =>
    withRuntime(cmd, async (rt) => {
      if (!opts.yes) {
        process.stderr.write(`explorer: this deletes everything indexed for chain ${chainId}; run again with --yes to do it\n`);
        process.exitCode = 1;
        return;
      }
      const removed = await asChainWriter(rt.db, chainId, () => removeChain(rt.db, chainId));
      if (!removed) {
        process.stderr.write(`explorer: no chain ${chainId} in this database\n`);
        process.exitCode = 1;
        return;
      }
      process.stdout.write(`removed chain ${chainId}: readers stop serving it within seconds; \`explorer index\` with it indexes it afresh\n`);
    }),
  );
  return chains;
}
