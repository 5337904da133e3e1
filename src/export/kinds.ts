import type { Block, BlocksPageParams, HolderItem, HoldersPageParams } from '../sdk/types.js';
import { csvLine, leadingFields, type CsvValue } from './csv.js';
import { isAddress } from '../evm/hex.js';

export type ExportFormat = 'csv' | 'jsonl';

/** What differs between the exportable lists: columns, and the position after a written record. */
export interface ExportKind<Item, Params> {
  /** what the progress line counts */
  noun: string;
  csvHeader: string;
  csvRow(item: Item): CsvValue[];
  /**
   * The `next_page_params` that continue strictly after the record on `line`; keyset paging
   * makes any record a valid place to resume from.
   */
  positionAfter(line: string, format: ExportFormat, context: PositionContext<Params>): Params;
}

export interface PositionContext<Params> {
  itemsCount: number;
  key: string | undefined;
  /** the last position the server handed out, when known: it says which fields it speaks */
  previous: Params | null;
}

export function formatLine<Item>(kind: ExportKind<Item, unknown>, format: ExportFormat, item: Item): string {
  return format === 'jsonl' ? JSON.stringify(item) : csvLine(kind.csvRow(item));
}

const INTEGER = /^-?[0-9]+$/;
const withKey = (key: string | undefined) => (key === undefined ? {} : { key });

/** address, value, token_id ('' or undefined when none) of a written holder record */
function holderKeyFields(line: string, format: ExportFormat): Array<string | undefined> {
  if (format === 'csv') return leadingFields(line, 3);
  const item = JSON.parse(line) as HolderItem;
  return [item.address?.hash, item.value, item.token_id ?? undefined];
}

export const holdersKind: ExportKind<HolderItem, HoldersPageParams> = {
  noun: 'holders',
  csvHeader: 'address,value,token_id,name,is_contract',
  csvRow: (h) => [h.address.hash, h.value, h.token_id, h.address.name, h.address.is_contract],
  positionAfter(line, format, { itemsCount, key, previous }) {
    const [address, value, tokenId] = holderKeyFields(line, format);
    if (!address || !isAddress(address) || !value || !INTEGER.test(value)) {
      throw new Error(`cannot resume after this line: ${line.slice(0, 120)}`);
    }
    // token_id is this server's ERC-1155 tie-breaker; the hosted API would refuse it, so it is
    // sent only where the server has sent it before (or, knowing nothing, where the row has one).
    const speaksTokenId = previous === null ? true : previous.token_id !== undefined;
    return {
      address_hash: address.toLowerCase(),
      items_count: itemsCount,
      value,
      ...(tokenId && speaksTokenId ? { token_id: tokenId } : {}),
      // the snapshot's block as the server pinned it: a reorg since is refused, not mixed in
      ...(previous?.block_number !== undefined && previous.block_hash !== undefined ? { block_number: previous.block_number, block_hash: previous.block_hash } : {}),
      ...withKey(key),
    };
  },
};

export const blocksKind: ExportKind<Block, BlocksPageParams> = {
  noun: 'blocks',
  csvHeader:
    'height,hash,timestamp,type,transactions_count,gas_used,gas_limit,base_fee_per_gas,burnt_fees,priority_fee,transaction_fees',
  csvRow: (b) => [
    b.height, b.hash, b.timestamp, b.type, b.transactions_count, b.gas_used, b.gas_limit,
    b.base_fee_per_gas, b.burnt_fees, b.priority_fee, b.transaction_fees,
  ],
  positionAfter(line, format, { itemsCount, key }) {
    const height = format === 'jsonl' ? (JSON.parse(line) as Block).height : Number(leadingFields(line, 1)[0]);
    if (!Number.isSafeInteger(height)) throw new Error(`cannot resume after this line: ${line.slice(0, 120)}`);
    return { block_number: height, items_count: itemsCount, ...withKey(key) };
  },
};
