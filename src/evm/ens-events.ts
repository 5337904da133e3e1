import { decodeAbiParameters, namehash, toEventSelector } from 'viem';
import type { Hex } from '../db/rows.js';
import type { RpcReceipt } from '../rpc/types.js';

/**
 * ENS events that decide an address's primary name: the registry's NewResolver (which resolver
 * answers for a node), any resolver's NameChanged (a reverse node's name) and AddrChanged (a
 * forward node's address). Which contract is a node's resolver is decided when names are
 * resolved (db/queries/ens.ts), so resolvers' events are kept from any emitter.
 */
export type EnsEventKind = 'resolver' | 'name' | 'addr';

export interface EnsEvent {
  blockNumber: bigint;
  logIndex: number;
  kind: EnsEventKind;
  emitter: Hex;
  node: Hex;
  /** resolver or address (lowercase hex), or the name */
  value: string;
}

/** An address whose reverse node is `node` (checked by hashing: never a guess). */
export interface ReverseNode {
  node: Hex;
  address: Hex;
}

const NEW_RESOLVER = toEventSelector('NewResolver(bytes32,address)');
const NAME_CHANGED = toEventSelector('NameChanged(bytes32,string)');
const ADDR_CHANGED = toEventSelector('AddrChanged(bytes32,address)');
const REVERSE_CLAIMED = toEventSelector('ReverseClaimed(address,bytes32)');

/** A name longer than this cannot be anyone's primary name here: kept as a cleared one. */
export const MAX_ENS_NAME = 1_024;

/** `<address>.addr.reverse`'s node: where an address's primary name is set. */
export const reverseNodeOf = (address: Hex): Hex => namehash(`${address.slice(2).toLowerCase()}.addr.reverse`);

const wordAddress = (word: string) => `0x${word.slice(-40)}`.toLowerCase() as Hex;

export function decodeEnsEvents(receipts: readonly RpcReceipt[], registry: Hex): { events: EnsEvent[]; reverse: ReverseNode[] } {
  const events: EnsEvent[] = [];
  const reverse: ReverseNode[] = [];
  for (const receipt of receipts) {
    // the sender of a transaction that sets a reverse record is, with the registrars in use,
    // usually the address itself: it is checked against every node its transaction touches
    const sender = typeof receipt.from === 'string' ? (receipt.from.toLowerCase() as Hex) : null;
    const senderNode = sender && receipt.logs.some((l) => l.topics[0] === NEW_RESOLVER || l.topics[0] === NAME_CHANGED) ? reverseNodeOf(sender) : null;
    for (const log of receipt.logs) {
      const topic = log.topics[0];
      const node = log.topics[1]?.toLowerCase() as Hex | undefined;
      if (node === undefined || log.logIndex === null || log.blockNumber === null) continue;
      const at = { blockNumber: BigInt(log.blockNumber), logIndex: Number(log.logIndex), emitter: log.address.toLowerCase() as Hex, node };
      try {
        if (topic === NEW_RESOLVER && at.emitter === registry) {
          events.push({ ...at, kind: 'resolver', value: wordAddress(log.data.slice(0, 66)) });
        } else if (topic === NAME_CHANGED) {
          const [name] = decodeAbiParameters([{ type: 'string' }], log.data);
          events.push({ ...at, kind: 'name', value: name.length > MAX_ENS_NAME ? '' : name });
        } else if (topic === ADDR_CHANGED) {
          events.push({ ...at, kind: 'addr', value: wordAddress(log.data.slice(0, 66)) });
        } else if (topic === REVERSE_CLAIMED && log.topics[2]) {
          const address = wordAddress(log.topics[1]!);
          const claimed = log.topics[2].toLowerCase() as Hex;
          if (reverseNodeOf(address) === claimed) reverse.push({ node: claimed, address });
          continue;
        } else {
          continue;
        }
      } catch {
        continue; // a log of that signature from a contract that encodes it otherwise: not ENS's
      }
      if (senderNode === node) reverse.push({ node, address: sender! });
    }
  }
  return { events, reverse };
}
