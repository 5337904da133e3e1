/**
 * Migration 020 renders the tags of addresses stored before it into addresses.tags_json, and 022
 * puts the checksummed address into their public tags; pages must then show them as they were
 * written to address_tags, as for tags written after it.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { migrate } from '../../src/db/migrate.js';
import { after as checksumTags } from '../../src/db/migrations/022_tags_json_checksums.js';
import { holdersPage } from '../../src/db/queries/holders.js';
import { addressView } from '../../src/api/views/address.js';
import { availableEngines, databaseBefore } from '../support/databases.js';
import { addressOf } from '../support/seed.js';

const CHAIN = 7;
const TOKEN = addressOf(0, 'tags-json-token');
const TAGGED = addressOf(1, 'tags-json-holder');
const PLAIN = addressOf(2, 'tags-json-plain');

describe.each(await availableEngines())('migrations 020 and 022 (tags as wire JSON) on %s', (engine) => {
  const opened: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const close of opened) await close();
  });

  it('renders the tags stored before it as the pages show tags', async () => {
    const { db, close } = await databaseBefore(engine, '020_address_tags_json');
    opened.push(close);
    const bytes = (hex: string) => Buffer.from(hex.slice(2), 'hex');
    await db.query(`INSERT INTO chains (chain_id) VALUES ($1)`, [CHAIN]);
    await db.query(`INSERT INTO tokens (chain_id, address, type) VALUES ($1, $2, 'ERC-20')`, [CHAIN, bytes(TOKEN)]);
    await db.query(
      `INSERT INTO token_balances (chain_id, token, holder, token_id, value, block_number) VALUES ($1, $2, $3, NULL, 10, 1), ($1, $2, $4, NULL, 5, 1)`,
      [CHAIN, bytes(TOKEN), bytes(TAGGED), bytes(PLAIN)],
    );
    await db.query(
      `INSERT INTO address_tags (chain_id, address, kind, slug, name, tag_type, ordinal, meta) VALUES
         ($1, $2, 'public', 'exchange', 'Exchange "X"', 'generic', 1, '{}'),
         ($1, $2, 'public', 'binance', 'Binance', 'generic', 0, '{}'),
         ($1, $2, 'metadata', 'hot', 'Hot wallet', 'generic', 5, '{}'),
         ($1, $2, 'metadata', 'name', 'Binance', 'name', 1, '{"main_entity": "Binance \\\\ Co"}')`,
      [CHAIN, bytes(TAGGED)],
    );
    await db.query(
      `INSERT INTO addresses (chain_id, hash, tags) SELECT $1, $2, jsonb_agg(jsonb_build_object('kind', t.kind, 'slug', t.slug,
         'name', t.name, 'tag_type', t.tag_type, 'ordinal', t.ordinal, 'meta', t.meta) ORDER BY t.ordinal, t.slug) FROM address_tags t`,
      [CHAIN, bytes(TAGGED)],
    );
    await migrate(db);
    const stored = await db.query<{ tags_json: string }>('SELECT tags_json FROM addresses WHERE chain_id = $1', [CHAIN]);
    expect(stored[0]!.tags_json).toContain(`"address_hash":"${getAddress(TAGGED)}"`);
    expect(stored[0]!.tags_json).not.toContain('"address_hash":null');
    const page = await holdersPage(db, { chainId: CHAIN, token: TOKEN, after: null, limit: 10 });
    const [tagged, plain] = page.holders.map((h) => addressView(h.address));
    expect(tagged!.public_tags).toEqual([
      { address_hash: getAddress(TAGGED), display_name: 'Binance', label: 'binance' },
      { address_hash: getAddress(TAGGED), display_name: 'Exchange "X"', label: 'exchange' },
    ]);
    expect(tagged!.metadata).toEqual({
      tags: [
        { name: 'Binance', slug: 'name', ordinal: 1, tagType: 'name', meta: { main_entity: 'Binance \\ Co' } },
        { name: 'Hot wallet', slug: 'hot', ordinal: 5, tagType: 'generic', meta: {} },
      ],
    });
    expect([plain!.public_tags, plain!.metadata]).toEqual([[], null]);
  });

  it('022 renders every slot row again, a chunk at a time, across chains', async () => {
    const { db, close } = await databaseBefore(engine, '022_tags_json_checksums');
    opened.push(close);
    const holders = [addressOf(3, 'slot-a'), addressOf(4, 'slot-b'), addressOf(5, 'slot-c')];
    await db.query(`INSERT INTO chains (chain_id) VALUES ($1), ($2)`, [CHAIN, CHAIN + 1]);
    const bytes = (hex: string) => Buffer.from(hex.slice(2), 'hex');
    for (const [i, holder] of holders.entries()) {
      const chain = CHAIN + (i % 2);
      await db.query(`INSERT INTO address_tags (chain_id, address, kind, slug, name, tag_type, ordinal, meta) VALUES ($1, $2, 'public', 'x', 'X', 'generic', 0, '{}')`, [chain, bytes(holder)]);
      await db.query(`INSERT INTO addresses (chain_id, hash, tags_json) VALUES ($1, $2, '"metadata":null,"public_tags":[{"address_hash":null,"display_name":"X","label":"x"}]')`, [chain, bytes(holder)]);
    }
    await checksumTags(db, 1);
    const stored = await db.query<{ hash: string; tags_json: string }>(`SELECT '0x' || encode(hash, 'hex') AS hash, tags_json FROM addresses ORDER BY hash`);
    expect(stored).toHaveLength(3);
    for (const row of stored) expect(row.tags_json).toBe(`"metadata":null,"public_tags":[{"address_hash":"${getAddress(row.hash)}","display_name":"X","label":"x"}]`);
  });
});
