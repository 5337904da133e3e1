import type { Queryable } from '../client.js';
import type { Hex } from '../rows.js';
import { toBytea } from '../hex.js';
import { blockColumns } from '../model/block.js';
import { omitColumns, readRow, selectList, type RowOf } from '../model/columns.js';
import { addressLateralJoin, addressSelectColumns, readAddress, type AddressInfo, type AddressRowColumns } from './address-columns.js';

/** What a page shows of a block: everything stored but its chain. */
const pageColumns = omitColumns(blockColumns, 'chainId');
export type PageBlock = RowOf<typeof pageColumns>;

/** A block of a page with its miner's address decorations. */
export interface ValidatedBlock {
  block: PageBlock;
  miner: AddressInfo;
}

/** The page statement, exported so tests can EXPLAIN exactly what the API runs. */
export function blocksValidatedPageQuery(params: { chainId: number; miner: Hex; beforeNumber: bigint | null; limit: number }) {
  const args: unknown[] = [params.chainId, toBytea(params.miner), params.limit];
  let keyset = '';
  if (params.beforeNumber !== null) {
    args.push(params.beforeNumber.toString());
    keyset = 'AND b.number < $4::bigint';
  }
  const text = `SELECT ${selectList(pageColumns, 'b')}, ${addressSelectColumns}
     FROM blocks b
     ${addressLateralJoin('b.miner', '$1')}
     WHERE b.chain_id = $1 AND b.miner = $2 ${keyset}
     ORDER BY b.number DESC
     LIMIT $3`;
  return { text, args };
}

/** One page of blocks mined by an address, newest first: a range scan of blocks_by_miner. */
export async function blocksValidatedPage(
  db: Queryable,
  params: { chainId: number; miner: Hex; beforeNumber: bigint | null; limit: number },
): Promise<ValidatedBlock[]> {
  const { text, args } = blocksValidatedPageQuery(params);
  const rows = await db.query<Record<string, unknown> & AddressRowColumns>(text, args, { prepare: true });
  return rows.map((r) => {
    const block = readRow(pageColumns, r);
    return { block, miner: readAddress(block.miner, r) };
  });
}
