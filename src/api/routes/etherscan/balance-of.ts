import type { Hex } from '../../../db/rows.js';
import { ok, TEXT } from './envelope.js';
import { addressParam } from './params.js';
import type { ActionContext, EtherscanAction } from './action.js';

/** What tells one balanceOf action from another: its name and how it reads the balance. */
export interface BalanceOfSpec {
  action: string;
  summary: string;
  /** the parameters it reads after contractaddress and address */
  parameters: Readonly<Record<string, string>>;
  /** the balance as balanceOf(holder) on token returns it (or returned it), 0n for none */
  read(context: ActionContext, token: Hex, holder: Hex): Promise<bigint>;
}

/**
 * An account action answering one token's balanceOf(address): tokenbalance (now) and
 * tokenbalancehistory (at a block) differ only in `read`. The token is checked before the holder,
 * and both before what `read` checks, so a request with several bad parameters gets the same
 * first error from either action.
 */
export function balanceOfAction(spec: BalanceOfSpec): EtherscanAction {
  return {
    module: 'account',
    action: spec.action,
    summary: spec.summary,
    parameters: { contractaddress: 'the token', address: 'the holder', ...spec.parameters },
    async run(context) {
      const token = addressParam(context.query, 'contractaddress', TEXT.contractAddress);
      const holder = addressParam(context.query, 'address', TEXT.address);
      return ok((await spec.read(context, token, holder)).toString());
    },
  };
}
