/**
 * The parts of the Nitro rollup contracts (OffchainLabs/nitro-contracts) the settlement follower
 * reads: the rollup's two addresses, the SequencerInbox's batch event and batch-posting functions
 * (whose calldata holds the batch's message counts), the Outbox's confirmation event.
 * src/chains/arbitrum/batch-data.test.ts holds these against the ABIs the npm package ships.
 */
import { parseAbi } from 'viem';

export const rollupAbi = parseAbi([
  'function sequencerInbox() view returns (address)',
  'function outbox() view returns (address)',
]);

export const sequencerInboxEventsAbi = parseAbi([
  'struct TimeBounds { uint64 minTimestamp; uint64 maxTimestamp; uint64 minBlockNumber; uint64 maxBlockNumber; }',
  'event SequencerBatchDelivered(uint256 indexed batchSequenceNumber, bytes32 indexed beforeAcc, bytes32 indexed afterAcc, bytes32 delayedAcc, uint256 afterDelayedMessagesRead, TimeBounds timeBounds, uint8 dataLocation)',
  // the batch's data when it is not in the transaction's input (posted by a contract)
  'event SequencerBatchData(uint256 indexed batchSequenceNumber, bytes data)',
]);

/** Every way a batch is posted; the first four-argument form is the legacy one, without counts. */
export const batchPostingAbi = parseAbi([
  'struct Message { uint8 kind; address sender; uint64 blockNumber; uint64 timestamp; uint256 inboxSeqNum; uint256 baseFeeL1; bytes32 messageDataHash; }',
  'struct DelayProof { bytes32 beforeDelayedAcc; Message delayedMessage; }',
  'function addSequencerL2BatchFromOrigin(uint256 sequenceNumber, bytes data, uint256 afterDelayedMessagesRead, address gasRefunder)',
  'function addSequencerL2BatchFromOrigin(uint256 sequenceNumber, bytes data, uint256 afterDelayedMessagesRead, address gasRefunder, uint256 prevMessageCount, uint256 newMessageCount)',
  'function addSequencerL2Batch(uint256 sequenceNumber, bytes data, uint256 afterDelayedMessagesRead, address gasRefunder, uint256 prevMessageCount, uint256 newMessageCount)',
  'function addSequencerL2BatchFromBlobs(uint256 sequenceNumber, uint256 afterDelayedMessagesRead, address gasRefunder, uint256 prevMessageCount, uint256 newMessageCount)',
  'function addSequencerL2BatchFromBlobsDelayProof(uint256 sequenceNumber, uint256 afterDelayedMessagesRead, address gasRefunder, uint256 prevMessageCount, uint256 newMessageCount, DelayProof delayProof)',
  'function addSequencerL2BatchFromOriginDelayProof(uint256 sequenceNumber, bytes data, uint256 afterDelayedMessagesRead, address gasRefunder, uint256 prevMessageCount, uint256 newMessageCount, DelayProof delayProof)',
  'function addSequencerL2BatchDelayProof(uint256 sequenceNumber, bytes data, uint256 afterDelayedMessagesRead, address gasRefunder, uint256 prevMessageCount, uint256 newMessageCount, DelayProof delayProof)',
]);

export const outboxEventsAbi = parseAbi(['event SendRootUpdated(bytes32 indexed outputRoot, bytes32 indexed l2BlockHash)']);

/** IBridge.BatchDataLocation */
export const BatchDataLocation = { TxInput: 0, SeparateBatchEvent: 1, NoData: 2, Blob: 3 } as const;

/**
 * Nitro's NodeInterface: a virtual contract every Nitro node answers at this address (it has no
 * code on chain; a plain EVM node answers a call to it with nothing).
 */
export const NODE_INTERFACE_ADDRESS = '0x00000000000000000000000000000000000000c8' as const;

export const nodeInterfaceAbi = parseAbi(['function findBatchContainingBlock(uint64 blockNum) view returns (uint64 batch)']);
