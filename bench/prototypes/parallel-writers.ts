/**
 * Prototype (issue 14): does one writer connection bound the backfill's write? The backfill's
 * balance write as the indexer does it (write-balances.ts applyBlockChanges, a chain's own
 * partitions with the page indexes deferred, db/chain-partitions.ts), one transaction per batch
 * on one connection (`one`), against the same batches split by token into `--shards` parts
 * written in parallel, each in its own transaction on its own connection (`sharded`). Both end
 * with the same balances and intervals (a digest is printed per run).
 *
 *   npx tsx bench/prototypes/parallel-writers.ts [--rounds 3] [--shards 2] [--no-history]
 *
 * The chain is synthetic, shaped like bench:index's (200,000 transfers over 50 Zipf-weighted
 * tokens and 20,000 holders, 1,038 blocks in 12 batches). Each round runs each variant once on
 * a fresh PostgreSQL database, alternating which goes first. PostgreSQL only: PGlite has one
 * connection. A prototype: what a built design needs besides (a progress marker per shard, the
 * resume from the lowest, pages during the backfill) is in BENCHMARKS.md.
 */
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import type { Database } from '../../src/db/client.js';
import { applyBlockChanges, applyBalanceDeltas, type BlockDelta } from '../../src/db/queries/write-balances.js';
import { hexArray } from '../../src/db/hex.js';
import { BalanceSum } from '../../src/indexer/balance-sum.js';
import { startBackfill, finishBackfill } from '../../src/db/chain-partitions.js';
import type { Hex } from '../../src/db/rows.js';
import { address, skewed, syntheticBatches } from './synthetic-chain.js';
import { freshDatabase } from '../../test/support/databases.js';

const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '3' },
    shards: { type: 'string', default: '2' },
    variants: { type: 'string', default: 'one,sharded' },
    'no-history': { type: 'boolean', default: false },
  },
});
const SHAPE = { tokens: 50, holders: 20_000, transfers: 200_000, blocks: 1_038, batches: 12 } as const;
const CHAIN = 77;
const history = !args['no-history'];
async function write(db: Database, changes: BlockDelta[]) {
  const sums = BalanceSum.of(changes);
  await db.transaction(async (tx) => {
    if (history) await applyBlockChanges(tx, CHAIN, sums.changed());
    else await applyBalanceDeltas(tx, CHAIN, changes.at(-1)!.blockNumber, sums.nonZero());
  });
}
const SHARDS = Number(args.shards);
const shardOf = (token: Hex) => parseInt(token.slice(-2), 16) % SHARDS;
async function run(variant: string, db: Database, batches: BlockDelta[][]) {
  for (const b of batches) {
    if (variant === 'one') await write(db, b);
    else await Promise.all(Array.from({ length: SHARDS }, (_, s) => write(db, b.filter((c) => shardOf(c.token) === s))));
  }
}
async function main() {
  const batches = syntheticBatches(SHAPE, skewed);
  const variants = args.variants!.split(',');
  const res: Record<string, number[]> = {};
  for (let r = 0; r < Number(args.rounds); r++) {
    for (let k = 0; k < variants.length; k++) {
      const v = variants[(k + r) % variants.length]!;
      const { db, drop } = await freshDatabase('postgres');
      try {
        await db.query(`INSERT INTO tokens (chain_id, address, type) SELECT $1, decode(a, 'hex'), 'ERC-20' FROM unnest($2::text[]) AS a`, [CHAIN, hexArray(Array.from({ length: SHAPE.tokens }, (_, t) => address(t, 'aa')))]);
        await db.transaction((tx) => startBackfill(tx, CHAIN));
        const t0 = performance.now();
        await run(v, db, batches);
        const t1 = performance.now();
        await finishBackfill(db, CHAIN);
        const t2 = performance.now();
        const [d] = await db.query<{ h: string; n: string }>(`SELECT md5(string_agg(encode(token,'hex')||encode(holder,'hex')||value::text||block_number::text, ',' ORDER BY token, holder)) h, (SELECT count(*) FROM balance_intervals)::text n FROM token_balances`);
        (res[v] ??= []).push(Math.round(t1 - t0));
        console.log(`round ${r} ${v}: write ${Math.round(t1 - t0)} ms, hand-over ${Math.round(t2 - t1)} ms, intervals ${d!.n} digest ${d!.h.slice(0, 8)} load ${loadavg()[0]!.toFixed(2)}`);
      } finally { await drop(); }
    }
  }
  console.log(res);
}
await main();
