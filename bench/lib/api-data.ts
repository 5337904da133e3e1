/**
 * Server-side bulk load of the API benchmark's data set: rows are generated inside PostgreSQL
 * (INSERT … SELECT generate_series), so loading ten million holders costs minutes, not the hours a
 * client-side loop would. Everything derives from the row number and one seeded random stream,
 * so two runs of one size load the same data.
 */
import pg from 'pg';
import { addressesWithChecksums, REBUILD_ADDRESS_TAGS } from '../../src/db/queries/write-addresses.js';
import type { Hex } from '../../src/db/rows.js';
import { blockColumns } from '../../src/db/model/block.js';
import { readRow, selectList } from '../../src/db/model/columns.js';
import { storedPageJson } from '../../src/db/queries/write-blocks.js';

export interface DataSize {
  /** holders of the one big token */
  holders: number;
  /** small tokens of 1…maxSmallHolders holders each */
  tokens: number;
  blocks: number;
  miners: number;
}

export const CHAIN_ID = 1;
/** kinds fed to bench_addr: one address space per kind */
const HOLDER = 1;
const TOKEN = 2;
const MINER = 3;
/** Multiplier that scatters small tokens' holders over the pool; prime, so coprime with most pool sizes. */
const SCATTER = 2654435761n;

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));

/** The 20-byte address bench_addr(kind, i) gives, computed in SQL from the same formula. */
export async function addressOf(client: pg.Client, kind: 'holder' | 'token' | 'miner', i: number): Promise<`0x${string}`> {
  const k = { holder: HOLDER, token: TOKEN, miner: MINER }[kind];
  const { rows } = await client.query<{ a: string }>(`SELECT encode(bench_addr($1, $2), 'hex') AS a`, [k, i]);
  return `0x${rows[0]!.a}`;
}

/**
 * Indexes and unique constraints are dropped during the load and rebuilt from their own
 * definitions (read from the catalog, so always what the migrations made): one sorted build
 * instead of millions of random inserts into a B-tree.
 */
export async function withoutIndexes(client: pg.Client, table: string, log: (m: string) => void, load: () => Promise<void>) {
  const { rows: constraints } = await client.query<{ name: string; def: string }>(
    `SELECT conname AS name, pg_get_constraintdef(oid) AS def FROM pg_constraint
     WHERE conrelid = $1::regclass AND contype IN ('p', 'u') AND conparentid = 0`,
    [table],
  );
  const { rows: indexes } = await client.query<{ name: string; def: string }>(
    `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS def FROM pg_index i
     WHERE indrelid = $1::regclass AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
    [table],
  );
  for (const c of constraints) await client.query(`ALTER TABLE ${table} DROP CONSTRAINT ${c.name}`);
  for (const i of indexes) await client.query(`DROP INDEX ${i.name}`);
  await load();
  for (const c of constraints) {
    const t = Date.now();
    await client.query(`ALTER TABLE ${table} ADD CONSTRAINT ${c.name} ${c.def}`);
    log(`  ${table}: built ${c.name} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
  for (const i of indexes) {
    const t = Date.now();
    await client.query(i.def);
    log(`  ${table}: built ${i.name} in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  }
}

/** Runs `insert` over 1..total in chunks, printing progress. The statement gets $1 = first, $2 = last. */
async function inChunks(client: pg.Client, what: string, total: number, chunk: number, insert: string, log: (m: string) => void) {
  const started = Date.now();
  for (let first = 1; first <= total; first += chunk) {
    const last = Math.min(total, first + chunk - 1);
    await client.query(insert, [first, last]);
    const s = (Date.now() - started) / 1000;
    log(`  ${what}: ${last.toLocaleString('en-US')} / ${total.toLocaleString('en-US')} (${s.toFixed(1)} s)`);
  }
}

/**
 * Each block's page rendering (blocks.page_json, migration 021), by the indexer's own code
 * (api/views/block-page-json.ts), as the indexer writes it with every block: the rows are read
 * through a cursor and rendered here, kept in a side table, then set in one pass (a hash join;
 * the blocks table has no indexes yet).
 */
async function renderBlockPages(client: pg.Client, log: (m: string) => void) {
  const started = Date.now();
  let renderMs = 0;
  let rendered = 0;
  await client.query('CREATE TABLE bench_block_pages (number bigint, page_json text)');
  await client.query('BEGIN');
  await client.query(`DECLARE bench_blocks NO SCROLL CURSOR FOR SELECT ${selectList(blockColumns, 'b')} FROM blocks b`);
  for (;;) {
    const { rows } = await client.query<Record<string, unknown>>('FETCH 20000 FROM bench_blocks');
    if (rows.length === 0) break;
    const blocks = rows.map((r) => readRow(blockColumns, r));
    const t = performance.now();
    const pages = blocks.map(storedPageJson);
    renderMs += performance.now() - t;
    await client.query('INSERT INTO bench_block_pages SELECT * FROM unnest($1::bigint[], $2::text[])', [blocks.map((b) => b.number.toString()), pages]);
    rendered += rows.length;
  }
  await client.query('COMMIT');
  await client.query(`UPDATE blocks b SET page_json = p.page_json FROM bench_block_pages p WHERE b.chain_id = ${CHAIN_ID} AND b.number = p.number`);
  await client.query('DROP TABLE bench_block_pages');
  log(
    `  blocks: page_json of ${rendered.toLocaleString('en-US')} blocks in ${((Date.now() - started) / 1000).toFixed(1)} s ` +
      `(rendering ${((renderMs * 1000) / rendered).toFixed(1)} µs per block, what the indexer adds to each block's write)`,
  );
}

export async function loadApiData(url: string, size: DataSize, log: (m: string) => void): Promise<void> {
  const poolSize = BigInt(size.holders);
  if (gcd(SCATTER, poolSize) !== 1n) throw new Error(`--holders ${size.holders} shares a factor with ${SCATTER}: pick another size`);
  const maxSmall = Math.min(1000, size.holders);
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    // Generous sort memory makes the index builds single-pass; nothing here needs durability
    // before the final CHECKPOINT.
    await client.query(`SET maintenance_work_mem = '1GB'; SET synchronous_commit = off; SET work_mem = '256MB'`);
    await client.query('SELECT setseed(0.4242)');
    await client.query(
      `CREATE FUNCTION bench_addr(kind int, i bigint) RETURNS bytea
       LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT substring(sha256(int4send(kind) || int8send(i)) FROM 1 FOR 20) $$`,
    );
    await client.query(`INSERT INTO chains (chain_id, indexed_block, head_block) VALUES ($1, $2, $2)`, [CHAIN_ID, size.blocks]);

    // Token 0 is the big one; small token t has 1 + 999·u³ holders (most tokens have few).
    await client.query(
      `CREATE TABLE bench_small_tokens AS
       SELECT t, bench_addr(${TOKEN}, t) AS address, 1 + floor(${maxSmall - 1} * power(random(), 3))::int AS n,
              (t % 10 = 0) AS nft
       FROM generate_series(1, $1::int) t`,
      [size.tokens],
    );
    await client.query(
      `INSERT INTO tokens (chain_id, address, type, name, symbol, decimals, total_supply, holder_count, metadata_fetched)
       SELECT ${CHAIN_ID}, bench_addr(${TOKEN}, 0), 'ERC-20', 'Big Token', 'BIG', 18, 10::numeric ^ 30, $1::bigint, true
       UNION ALL
       SELECT ${CHAIN_ID}, address, CASE WHEN nft THEN 'ERC-721' ELSE 'ERC-20' END, 'Small Token ' || t, 'S' || t,
              CASE WHEN nft THEN NULL ELSE 18 END, NULL, n, true
       FROM bench_small_tokens`,
      [size.holders],
    );

    log(`loading ${size.holders.toLocaleString('en-US')} holders of one token and ${size.tokens.toLocaleString('en-US')} small tokens`);
    // the key is the partitioned parent's (migration 024), the page indexes the default partition's, where these rows go
    await withoutIndexes(client, 'token_balances', log, () => withoutIndexes(client, 'token_balances_default', log, async () => {
      // Heavy-tailed amounts of an 18-decimal token; every tenth holder kept an airdrop of
      // 0.01 token untouched, so a long run of equal values (ranks ~13% to ~23%) exercises the
      // holder tie-break of the keyset.
      await inChunks(
        client,
        'big token holders',
        size.holders,
        1_000_000,
        `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number)
         SELECT ${CHAIN_ID}, bench_addr(${TOKEN}, 0), bench_addr(${HOLDER}, i), NULL,
                CASE WHEN i % 10 = 0 THEN 10::numeric ^ 16
                     ELSE floor(1e15 * power(1 - random(), -1.2))::numeric(78,0) END,
                floor(random() * ${size.blocks})::bigint
         FROM generate_series($1::bigint, $2::bigint) i`,
        log,
      );
      await inChunks(
        client,
        'small tokens',
        size.tokens,
        1_000,
        `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number)
         SELECT ${CHAIN_ID}, s.address, bench_addr(${HOLDER}, 1 + ((s.t::bigint * 1000 + j) * ${SCATTER}) % ${poolSize}), NULL,
                CASE WHEN s.nft THEN 1 + floor(50 * power(random(), 4))::numeric
                     ELSE floor(1e18 * power(1 - random(), -1.1))::numeric(78,0) END,
                floor(random() * ${size.blocks})::bigint
         FROM bench_small_tokens s, generate_series(1, s.n) j
         WHERE s.t BETWEEN $1 AND $2`,
        log,
      );
    }));

    log(`loading ${size.blocks.toLocaleString('en-US')} blocks over ${size.miners} miners`);
    await withoutIndexes(client, 'blocks', log, async () => {
      // Miner m mines with probability ∝ log((m+2)/(m+1)): a few big validators and a long
      // tail. Post-London values, fees consistent with gas used and base fee.
      await inChunks(
        client,
        'blocks',
        size.blocks,
        250_000,
        `INSERT INTO blocks (chain_id, hash, number, parent_hash, nonce, timestamp, miner, size, difficulty,
           total_difficulty, gas_limit, gas_used, base_fee_per_gas, burnt_fees, priority_fee, transaction_fees,
           transactions_count, internal_transactions_count, withdrawals_count, rewards, uncle_hashes,
           blob_gas_used, excess_blob_gas, blob_transactions_count)
         SELECT ${CHAIN_ID}, sha256(int8send(n)), n, sha256(int8send(n - 1)), '\\x0000000000000000'::bytea,
                1600000000 + n * 12, miner, 600 + floor(random() * 150000)::bigint, 0, 58750003716598352816469::numeric,
                30000000, gas_used, base_fee, gas_used * base_fee, gas_used * tip, gas_used * (base_fee + tip),
                floor(gas_used / 100000)::int, floor(random() * 50)::int, 16,
                jsonb_build_array(jsonb_build_object('reward', (gas_used * tip)::text, 'type', 'Miner Reward',
                                                     'address_hash', '0x' || encode(miner, 'hex'))),
                '[]'::jsonb,
                blobs * 131072, floor(random() * 64)::numeric * 131072, CASE WHEN blobs = 0 THEN 0 ELSE 1 + floor(random() * least(blobs, 4))::int END
         FROM (SELECT n, bench_addr(${MINER}, floor(power(${size.miners}, random()))::bigint - 1) AS miner,
                      floor(random() * 30000000)::numeric AS gas_used,
                      (1000000000 + floor(random() * 50000000000))::numeric AS base_fee,
                      floor(random() * 2000000000)::numeric AS tip,
                      floor(random() * 10)::numeric AS blobs
               FROM generate_series($1::bigint, $2::bigint) n) g`,
        log,
      );
      await renderBlockPages(client, log);
    });

    // Every tenth holder, at every depth, is known to the indexer (some contracts, a few
    // named, proxied or tagged), the other nine are not: the page's address join meets both.
    log('loading addresses and tags');
    await client.query(
      `INSERT INTO addresses (chain_id, hash, is_contract, proxy_type, implementations, name, is_verified, checked_at)
       SELECT ${CHAIN_ID}, bench_addr(${HOLDER}, i), i % 70 = 3, CASE WHEN i % 700 = 3 THEN 'eip1967' END,
              CASE WHEN i % 700 = 3 THEN jsonb_build_array(jsonb_build_object('address_hash',
                     '0x' || encode(bench_addr(${HOLDER}, i + 1), 'hex'), 'name', 'Impl ' || i)) ELSE '[]'::jsonb END,
              CASE WHEN i % 1000 = 3 THEN 'Holder ' || i END, i % 1000 = 3, now()
       FROM generate_series(3, $1::bigint, 10) i
       UNION ALL
       SELECT ${CHAIN_ID}, bench_addr(${MINER}, m), false, NULL, '[]'::jsonb, 'Validator ' || m, false, now()
       FROM generate_series(0, $2::int - 1) m`,
      [size.holders, size.miners],
    );
    await client.query(
      `INSERT INTO address_tags (chain_id, address, kind, slug, name, ordinal)
       SELECT ${CHAIN_ID}, bench_addr(${HOLDER}, i), 'public', 'exchange', 'Exchange', 0
       FROM generate_series(10003, $1::bigint, 10000) i`,
      [size.holders],
    );
    // the tag writer's own statement, given the tagged addresses as the writer gives them
    const tagged = await client.query<{ address: string }>(`SELECT DISTINCT encode(address, 'hex') AS address FROM address_tags`);
    await client.query(REBUILD_ADDRESS_TAGS, addressesWithChecksums(tagged.rows.map((r) => ({ chainId: CHAIN_ID, address: `0x${r.address}` as Hex }))));
    await client.query('DROP TABLE bench_small_tokens');
    // Visibility map and statistics, as autovacuum would have them on a long-running database.
    const t = Date.now();
    for (const table of ['token_balances', 'blocks', 'addresses', 'address_tags', 'tokens']) await client.query(`VACUUM (ANALYZE) ${table}`);
    await client.query('CHECKPOINT');
    log(`vacuum, analyze and checkpoint in ${((Date.now() - t) / 1000).toFixed(1)} s`);
  } finally {
    await client.end();
  }
}
