import { holdingsWindow, type Holding } from '../../../db/queries/holdings.js';
import { EMPTY, noRecords, ok, type Envelope, TEXT } from './envelope.js';
import { addressParam, pageWindow, PAGING_PARAMETERS, type EtherscanQuery } from './params.js';
import type { Queryable } from '../../../db/client.js';

/** What addresstokenbalance and addresstokennftbalance share: the holder, its paged holdings. */
export const HOLDINGS_PARAMETERS = { address: 'the holder', ...PAGING_PARAMETERS } as const;

export async function holdings<T>(
  context: { db: Queryable; chainId: number; query: EtherscanQuery },
  type: 'ERC-20' | 'ERC-721',
  row: (h: Holding) => T,
): Promise<Envelope> {
  const holder = addressParam(context.query, 'address', TEXT.address);
  // any page: an address may hold more than 10,000 tokens, and each page is one range scan
  const window = pageWindow(context.query, { deep: true, sort: 'asc' });
  const rows = await holdingsWindow(context.db, { chainId: context.chainId, holder, type, ...window });
  return rows.length === 0 ? noRecords(EMPTY.records) : ok(rows.map(row));
}
