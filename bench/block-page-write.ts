/**
 * What the blocks-validated page's rendering (blocks.page_json, migration 021) adds to the
 * indexer's block writes: the render itself (api/views/block-page-json.ts) and the write of the
 * wider row and its blocks_validated_page entry, against the same blocks written with the
 * statement and schema before migration 021. Each round writes BLOCKS blocks in batches of
 * BATCH (one upsert statement each, as write-batch.ts does) into a fresh database of each kind,
 * alternating which goes first.
 *
 *   npx tsx bench/block-page-write.ts [--engine postgres|pglite] [--blocks 20000] [--rounds 3]
 */
import { parseArgs } from 'node:util';
import { loadavg } from 'node:os';
import type { Database } from '../src/db/client.js';
import { blockColumns, type BlockRow } from '../src/db/model/block.js';
import { upsertParams, upsertStatement } from '../src/db/model/columns.js';
import { upsertBlocks } from '../src/db/queries/write-blocks.js';
import { blockPageJson } from '../src/api/views/block-page-json.js';
import { databaseBefore, freshDatabase, type Engine } from '../test/support/databases.js';
import { addressOf, blockRow } from '../test/support/seed.js';
import { median, round } from './lib/stats.js';

const { values } = parseArgs({
  options: { engine: { type: 'string', default: 'postgres' }, blocks: { type: 'string', default: '20000' }, rounds: { type: 'string', default: '3' } },
});
const engine = values.engine as Engine;
const BLOCKS = Number(values.blocks);
const ROUNDS = Number(values.rounds);
const BATCH = 50;
const MINERS = Array.from({ length: 8 }, (_, i) => addressOf(i, 'miner'));

/** The upsert as it was before migration 021: the block's columns alone. */
const upsertBefore = upsertStatement('blocks', blockColumns, {
  conflict: '(chain_id, hash)',
  update: (Object.keys(blockColumns) as Array<keyof typeof blockColumns>).filter((k) => k !== 'chainId' && k !== 'hash'),
});

const rows: BlockRow[] = Array.from({ length: BLOCKS }, (_, i) => blockRow(1, i + 1, MINERS[i % MINERS.length]!));

async function timeWrites(db: Database, write: (batch: BlockRow[]) => Promise<void>): Promise<number> {
  const started = performance.now();
  for (let i = 0; i < rows.length; i += BATCH) await write(rows.slice(i, i + BATCH));
  return ((performance.now() - started) * 1000) / rows.length;
}

async function before(): Promise<number> {
  const { db, close } = await databaseBefore(engine, '021_block_page_json');
  try {
    return await timeWrites(db, (batch) => db.query(upsertBefore, upsertParams(blockColumns, batch)).then(() => undefined));
  } finally {
    await close();
  }
}

async function after(): Promise<number> {
  const { db, drop } = await freshDatabase(engine);
  try {
    return await timeWrites(db, (batch) => upsertBlocks(db, batch));
  } finally {
    await drop();
  }
}

async function main() {
  // the render alone, warmed up
  for (const b of rows.slice(0, 2000)) blockPageJson(b);
  const t = performance.now();
  for (const b of rows) blockPageJson(b);
  const renderUs = ((performance.now() - t) * 1000) / rows.length;

  const samples: { before: number[]; after: number[] } = { before: [], after: [] };
  for (let round_ = 0; round_ < ROUNDS; round_++) {
    const order = round_ % 2 === 0 ? (['before', 'after'] as const) : (['after', 'before'] as const);
    for (const side of order) samples[side].push(side === 'before' ? await before() : await after());
    console.log(`round ${round_ + 1}: before ${round(samples.before.at(-1)!)} µs/block, after ${round(samples.after.at(-1)!)} µs/block`);
  }
  const b = median(samples.before);
  const a = median(samples.after);
  console.log(
    JSON.stringify({
      engine, blocks: BLOCKS, batch: BATCH, rounds: ROUNDS,
      render_us_per_block: round(renderUs, 1),
      write_us_per_block_before: round(b, 1),
      write_us_per_block_after: round(a, 1),
      added_us_per_block: round(a - b, 1),
      load_average: loadavg().map((l) => round(l, 2)),
    }),
  );
}

await main();
