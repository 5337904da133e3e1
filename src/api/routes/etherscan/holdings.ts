import { holdingsWindow, type Holding } from '../../../db/queries/holdings.js';
import { EMPTY, noRecords, ok, TEXT } from './envelope.js';
import { addressParam, pageWindow, PAGING_PARAMETERS, readWindow } from './params.js';
import type { EtherscanAction } from './action.js';

/** What tells addresstokenbalance from addresstokennftbalance: the standard and its extra fields. */
export interface HoldingsSpec {
  action: string;
  summary: string;
  type: 'ERC-20' | 'ERC-721';
  /** the fields that API adds after TokenQuantity for this standard */
  extra(h: Holding): Record<string, string>;
}

/**
 * An account action listing the tokens of one standard an address holds, by token address, paged:
 * both give TokenAddress, TokenName, TokenSymbol and TokenQuantity in that order, then `extra`.
 */
export function holdingsAction(spec: HoldingsSpec): EtherscanAction {
  return {
    module: 'account',
    action: spec.action,
    summary: spec.summary,
    parameters: { address: 'the holder', ...PAGING_PARAMETERS },
    async run({ db, chainId, query, hidden }) {
      const holder = addressParam(query, 'address', TEXT.address);
      // any page: an address may hold more than 10,000 tokens, and each page is one range scan
      const window = pageWindow(query, { deep: true, sort: 'asc' });
      const shown = await hidden();
      const rows = await readWindow(db, `${spec.action}:${chainId}:${holder}:${shown.join()}`, window, () =>
        holdingsWindow(db, { chainId, holder, type: spec.type, ...window, hidden: shown }),
      );
      if (rows.length === 0) return noRecords(EMPTY.records);
      return ok(
        rows.map((h) => ({
          TokenAddress: h.token,
          TokenName: h.name ?? '',
          TokenSymbol: h.symbol ?? '',
          TokenQuantity: h.value.toString(),
          ...spec.extra(h),
        })),
      );
    },
  };
}
