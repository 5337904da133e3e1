/**
 * Issue 11's bound: a holders page whose 50 rows all carry a name, tags and an ENS name against
 * today's page. Both are served by one database in one run: a twin of the big token (same
 * values, its own holders, every tenth of them known to the indexer as the plain data set has
 * it) stays unlabelled while the big token's holders get labels. The two pages at each depth
 * are asked alternately, request by request, so the machine's speed drifting over minutes hits
 * both alike (measuring "before labels" and "after" minutes apart measured the drift too).
 */
import type { FastifyInstance } from 'fastify';
import type { Database } from '../../src/db/client.js';
import { PAGE_FILTER } from '../../src/db/queries/holders.js';
import { addressesWithChecksums, REBUILD_ADDRESS_TAGS } from '../../src/db/queries/write-addresses.js';
import { toBytea } from '../../src/db/hex.js';
import type { Hex } from '../../src/db/rows.js';
import type { Label } from '../../src/labels/entry.js';
import { importLabels } from '../../src/labels/store.js';
import { CHAIN_ID, withoutIndexes } from './api-data.js';
import { withClient } from './pg-client.js';
import type { phaseRecorder } from './phases.js';
import type { quietGates } from './results.js';
import { median, round } from './stats.js';
import { alternatedP50s } from './alternated.js';

/** The twin's address of a holder: a fixed map, so the twin's holders are as scattered as the original's. */
const TWIN = (column: string) => `substring(sha256('\\x7477696e'::bytea || ${column}) FROM 1 FOR 20)`;

/** Copies the big token's balances, its holders' address rows and their tags to a twin token; returns the twin's address. */
export async function loadTwinToken(url: string, token: Hex, log: (m: string) => void): Promise<Hex> {
  const started = Date.now();
  const twin = await withClient(url, async (c) => {
    await c.query(`SET maintenance_work_mem = '1GB'; SET synchronous_commit = off; SET work_mem = '256MB'`);
    const big = toBytea(token);
    const { rows } = await c.query<{ twin: string }>(`SELECT encode(${TWIN('$1::bytea')}, 'hex') AS twin`, [big]);
    const twinBytes = toBytea(`0x${rows[0]!.twin}`);
    await c.query(
      `INSERT INTO tokens (chain_id, address, type, name, symbol, decimals, total_supply, holder_count, metadata_fetched)
       SELECT chain_id, $3, type, name || ' (unlabelled twin)', symbol, decimals, total_supply, holder_count, metadata_fetched
       FROM tokens WHERE chain_id = $1 AND address = $2`,
      [CHAIN_ID, big, twinBytes],
    );
    // the indexes built in bulk as the loader builds them: the twin's part of the page index as
    // dense as the original's, so neither side of the comparison reads a fragmented range
    await withoutIndexes(c, 'token_balances', log, async () => {
      await c.query(
        `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number)
         SELECT chain_id, $3, ${TWIN('holder')}, token_id, value, block_number FROM token_balances WHERE chain_id = $1 AND token = $2`,
        [CHAIN_ID, big, twinBytes],
      );
    });
    await c.query(
      `INSERT INTO addresses (chain_id, hash, is_contract, proxy_type, implementations, name, is_verified, checked_at)
       SELECT a.chain_id, ${TWIN('a.hash')}, a.is_contract, a.proxy_type, a.implementations, a.name, a.is_verified, a.checked_at
       FROM addresses a JOIN token_balances b ON b.chain_id = a.chain_id AND b.holder = a.hash
       WHERE b.chain_id = $1 AND b.token = $2`,
      [CHAIN_ID, big],
    );
    const tagged = await c.query<{ address: string }>(
      `INSERT INTO address_tags (chain_id, address, kind, slug, name, ordinal)
       SELECT t.chain_id, ${TWIN('t.address')}, t.kind, t.slug, t.name, t.ordinal
       FROM address_tags t JOIN token_balances b ON b.chain_id = t.chain_id AND b.holder = t.address
       WHERE b.chain_id = $1 AND b.token = $2
       RETURNING encode(address, 'hex') AS address`,
      [CHAIN_ID, big],
    );
    // the tag writer's own statement renders the twin's tags, as the loader does the original's
    const addresses = [...new Set(tagged.rows.map((r) => r.address))].map((a) => ({ chainId: CHAIN_ID, address: `0x${a}` as Hex }));
    if (addresses.length > 0) await c.query(REBUILD_ADDRESS_TAGS, addressesWithChecksums(addresses));
    for (const table of ['token_balances', 'addresses', 'address_tags', 'tokens']) await c.query(`VACUUM (ANALYZE) ${table}`);
    await c.query('CHECKPOINT');
    return `0x${rows[0]!.twin}` as Hex;
  });
  log(`twin token ${twin} loaded in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  return twin;
}

/** Names and tags on every row of the big token's holders pages (up to 1M rows): the labels through the import's own code. */
export async function labelHolders(db: Database, token: Hex, log: (m: string) => void): Promise<void> {
  const rows = await db.query<{ holder: string }>(
    `SELECT encode(b.holder, 'hex') AS holder FROM token_balances b WHERE ${PAGE_FILTER} LIMIT 1000000`,
    [CHAIN_ID, toBytea(token)],
  );
  const started = Date.now();
  for (let i = 0; i < rows.length; i += 5_000) {
    const labels: Label[] = rows.slice(i, i + 5_000).map((r, j) => ({
      chainId: CHAIN_ID,
      address: `0x${r.holder}` as Hex,
      name: `Holder ${i + j}`,
      isScam: (i + j) % 97 === 0,
      publicTags: [{ displayName: 'Exchange', label: 'exchange' }, { displayName: `Desk ${j % 10}`, label: `desk-${j % 10}` }],
      metadataTags: [
        { name: 'Hot wallet', slug: 'hot-wallet', ordinal: 2, tagType: 'generic', meta: {} as Record<string, string> },
        { name: 'Entity', slug: 'entity', ordinal: 1, tagType: 'name', meta: { main_entity: 'Entity', tooltipUrl: 'https://example.org' } },
      ],
    }));
    await importLabels(db, labels);
  }
  await db.query(`UPDATE addresses SET ens_domain_name = 'holder-' || encode(hash, 'hex') || '.eth' WHERE chain_id = $1 AND label_name IS NOT NULL`, [CHAIN_ID]);
  // as the loader leaves the plain data set: visibility map, statistics and no dirty pages, so
  // the labelled runs do not pay for a million rows' autovacuum and checkpoint
  for (const table of ['addresses', 'address_tags']) await db.query(`VACUUM (ANALYZE) ${table}`);
  await db.query('CHECKPOINT');
  log(`labelled ${rows.length.toLocaleString('en-US')} holders in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

export interface PagePair {
  depth: string;
  labelled: string[];
  plain: string[];
}

/**
 * Per run, each depth's labelled and plain pages asked alternately (alternated.ts); the run's figure for each
 * side is its worst depth's p50 (as holders_p50_ms is computed), and the result the medians over
 * runs and the median of the per-run ratios.
 */
export async function labelledOverPlain(
  app: FastifyInstance,
  pairs: PagePair[],
  phases: ReturnType<typeof phaseRecorder>,
  quiet: ReturnType<typeof quietGates>,
  counts: { runs: number; samples: number },
  log: (m: string) => void,
) {
  const perRun: Array<{ labelled: number; plain: number; depths: Record<string, { labelled_p50_ms: number; plain_p50_ms: number }> }> = [];
  for (let run = 1; run <= counts.runs; run++) {
    await quiet.before(`labelled against plain, run ${run}`);
    const depths: (typeof perRun)[number]['depths'] = {};
    for (const pair of pairs) {
      const [labelled, plain] = await alternatedP50s(app, phases, [pair.labelled, pair.plain], counts.samples);
      depths[pair.depth] = { labelled_p50_ms: labelled!, plain_p50_ms: plain! };
      log(`labelled against plain, run ${run}: ${pair.depth.padEnd(12)} labelled p50 ${depths[pair.depth]!.labelled_p50_ms} ms, plain ${depths[pair.depth]!.plain_p50_ms} ms`);
    }
    const worst = (k: 'labelled_p50_ms' | 'plain_p50_ms') => Math.max(...Object.values(depths).map((d) => d[k]));
    perRun.push({ labelled: worst('labelled_p50_ms'), plain: worst('plain_p50_ms'), depths });
  }
  return {
    plain_holders_p50_ms: round(median(perRun.map((r) => r.plain))),
    labelled_holders_p50_ms: round(median(perRun.map((r) => r.labelled))),
    labelled_over_plain: round(median(perRun.map((r) => r.labelled / r.plain)), 2),
    runs: perRun,
    note:
      'the big token\'s holders pages (every row: a name, 2 public and 2 metadata tags, an ENS name) against the same depths of an unlabelled twin ' +
      '(same values, every tenth holder known as in the plain data set), asked alternately in one run; worst depth per run, medians over runs',
  };
}
