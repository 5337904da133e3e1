import type { Queryable } from '../client.js';
import * as init from './001_init.js';
import * as indexer from './002_indexer.js';
import * as unclesByMiner from './003_uncles_by_miner.js';
import * as addressTagsInline from './004_address_tags_inline.js';
import * as addressesHashIndex from './005_addresses_hash_index.js';
import * as blockChainFields from './006_block_chain_fields.js';
import * as indexerHealth from './008_indexer_health.js';
import * as unclesAndRebasing from './009_uncles_and_rebasing.js';
import * as blockBlobs from './010_block_blobs.js';
import * as balanceHistory from './015_balance_history.js';
import * as holderSnapshots from './016_holder_snapshots.js';
import * as holdingsByHolder from './017_holdings_by_holder.js';
import * as blocksByTimestamp from './018_blocks_by_timestamp.js';
import * as addressLabelsAndAccounts from './013_address_labels_and_accounts.js';
import * as ensNames from './014_ens_names.js';
import * as arbitrumSettlement from './011_arbitrum_settlement.js';
import * as arbitrumSealedBatches from './019_arbitrum_sealed_batches.js';
import * as addressTagsJson from './020_address_tags_json.js';
import * as blockPageJson from './021_block_page_json.js';
import * as tagsJsonChecksums from './022_tags_json_checksums.js';
import * as balanceIntervals from './023_balance_intervals.js';
import * as balancesByChain from './024_balances_by_chain.js';
import * as heldSupply from './025_held_supply.js';
import * as chainWriter from './026_chain_writer.js';
import * as balancePrevValue from './027_balance_prev_value.js';
import * as tokenParts from './028_token_parts.js';
import * as unboundedSums from './029_unbounded_sums.js';
import * as holdersByTokenId from './030_holders_by_token_id.js';
import * as blockProducer from './031_block_producer.js';
import * as tokenTransferCounts from './032_token_transfer_counts.js';

export interface Migration {
  id: string;
  sql: string;
  /** a data step SQL cannot do, run after `sql` in the same transaction */
  after?: (tx: Queryable) => Promise<void>;
}

/**
 * Applied in this list's order, which is not their numbers' (017 and 018 were released before
 * 013–016, 011 after them; 007 and 012 were never released): a new migration goes at the end,
 * with the next free number. One once released is never edited, only followed by a new one.
 */
export const migrations: ReadonlyArray<Migration> = [
  { id: '001_init', sql: init.sql },
  { id: '002_indexer', sql: indexer.sql },
  { id: '003_uncles_by_miner', sql: unclesByMiner.sql },
  { id: '004_address_tags_inline', sql: addressTagsInline.sql },
  { id: '005_addresses_hash_index', sql: addressesHashIndex.sql },
  { id: '006_block_chain_fields', sql: blockChainFields.sql },
  { id: '008_indexer_health', sql: indexerHealth.sql },
  { id: '009_uncles_and_rebasing', sql: unclesAndRebasing.sql },
  { id: '010_block_blobs', sql: blockBlobs.sql },
  { id: '017_holdings_by_holder', sql: holdingsByHolder.sql },
  { id: '018_blocks_by_timestamp', sql: blocksByTimestamp.sql },
  { id: '013_address_labels_and_accounts', sql: addressLabelsAndAccounts.sql },
  { id: '014_ens_names', sql: ensNames.sql },
  { id: '015_balance_history', sql: balanceHistory.sql },
  { id: '016_holder_snapshots', sql: holderSnapshots.sql },
  { id: '011_arbitrum_settlement', sql: arbitrumSettlement.sql },
  { id: '019_arbitrum_sealed_batches', sql: arbitrumSealedBatches.sql },
  { id: '020_address_tags_json', sql: addressTagsJson.sql },
  { id: '021_block_page_json', sql: blockPageJson.sql },
  { id: '022_tags_json_checksums', sql: tagsJsonChecksums.sql, after: tagsJsonChecksums.after },
  { id: '023_balance_intervals', sql: balanceIntervals.sql },
  { id: '024_balances_by_chain', sql: balancesByChain.sql },
  { id: '025_held_supply', sql: heldSupply.sql },
  { id: '026_chain_writer', sql: chainWriter.sql },
  { id: '027_balance_prev_value', sql: balancePrevValue.sql },
  { id: '028_token_parts', sql: tokenParts.sql },
  { id: '029_unbounded_sums', sql: unboundedSums.sql },
  { id: '030_holders_by_token_id', sql: holdersByTokenId.sql, after: holdersByTokenId.after },
  { id: '031_block_producer', sql: blockProducer.sql },
  { id: '032_token_transfer_counts', sql: tokenTransferCounts.sql },
];
