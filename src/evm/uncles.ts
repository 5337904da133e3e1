/**
 * A block's uncles (ommers), each fetched by the including block's hash and its position in the
 * `uncles` list. Only blocks whose list is non-empty cost a call, so chains without uncles
 * (proof of stake, L2s) never make one.
 */
import { BlockNotAvailableError, InconsistentChainDataError } from '../rpc/errors.js';
import { parseQuantity, toQuantity } from '../rpc/quantity.js';
import type { RpcClient, RequestOptions } from '../rpc/client.js';
import type { RpcBlock } from '../rpc/types.js';

export async function fetchUncles(rpc: RpcClient, block: RpcBlock, options: RequestOptions = {}): Promise<RpcBlock[]> {
  const hashes = block.uncles ?? [];
  if (hashes.length === 0) return [];
  const uncles = await Promise.all(
    hashes.map((_, i) => rpc.request<RpcBlock | null>('eth_getUncleByBlockHashAndIndex', [block.hash, toQuantity(i)], options)),
  );
  return uncles.map((uncle, i) => {
    // The node no longer knows the including block by this hash: it was replaced while we
    // fetched, and the range is fetched again.
    if (uncle === null) throw new BlockNotAvailableError(parseQuantity(block.number), 0, 'an uncle it names is not available');
    if (uncle.hash.toLowerCase() !== hashes[i]!.toLowerCase()) {
      throw new InconsistentChainDataError(`uncle ${i} of block ${block.hash} is ${uncle.hash}, not ${hashes[i]}`);
    }
    return uncle;
  });
}
