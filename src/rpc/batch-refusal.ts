/**
 * How nodes and providers say that a batch was refused for its size: the words only, read by
 * ./classify-failure.ts (`batchRefusalOf`, and `rateLimitOf`, which must not take them for a
 * rate limit) and acted on by ./batch-cap.ts.
 */

/**
 * A node's or provider's refusal of a batch for its size, in their words. By the number of calls:
 * geth "batch too large" (--rpc.batch-request-limit), Erigon "batch limit 100 exceeded: 142
 * requests given", Nethermind "Batch size limit exceeded", Besu "Number of requests exceeds max
 * batch size", jsonrpsee (reth) "The batch request was too large", Ankr "Too many [...] methods in
 * the batch", "Batch of more than 3 requests are not allowed", "batch requests are not supported".
 * By the answer's bytes: geth's -32003 "response too large" for the calls past
 * --rpc.batch-response-max-size (25 MB by default: a batch of busy blocks' receipts or traces
 * reaches it), Nethermind's MaxBatchResponseBodySize. Besu and Nethermind send -32005, the
 * rate-limit code, for these: they are not rate limits, and waiting would not help.
 */
const BATCH_CALLS_REFUSAL =
  /batch(?: request)? (?:is |was )?too (?:large|big)|batch (?:size |request |items? )?limit|exceeds? (?:the )?max(?:imum)? batch|max(?:imum)? batch size|(?:number of|too many) .*(?:requests|calls|methods|items) .*(?:in|per) (?:the |a )?batch|batch of more than|batch(?:ing| requests?)? (?:is |are )?(?:not (?:supported|allowed|enabled)|disabled)/i;
const BATCH_BYTES_REFUSAL = /^response too large$|MaxBatchResponseBodySize|batch response .*(?:too large|exceed)/i;
/** A refusal that says no batch at all is taken: one call a request. */
const NO_BATCHES = /not (?:supported|allowed|enabled)|disabled/i;

export interface BatchRefusal {
  /** by the number of calls, or by the bytes of the answer */
  by: 'calls' | 'bytes';
  /** the most calls a batch may hold, when the words say it (a number below the batch's size) */
  limit: number | null;
  message: string;
}

/** Whether these words refuse a batch for its size (by calls or by bytes). */
export function isBatchRefusalMessage(message: string): boolean {
  return BATCH_CALLS_REFUSAL.test(message) || BATCH_BYTES_REFUSAL.test(message);
}

/**
 * What a refusal of a batch of `calls` calls says, from its message and HTTP status (413 refuses
 * the request's size); null when it is not one.
 */
export function batchRefusalIn(message: string, status: number | null, calls: number): BatchRefusal | null {
  if (BATCH_BYTES_REFUSAL.test(message)) return { by: 'bytes', limit: null, message };
  if (!BATCH_CALLS_REFUSAL.test(message) && status !== 413) return null;
  const stated = (message.match(/\d+/g) ?? []).map(Number).find((n) => n >= 1 && n < calls);
  return { by: 'calls', limit: stated ?? (NO_BATCHES.test(message) ? 1 : null), message: message || `HTTP ${status}` };
}
