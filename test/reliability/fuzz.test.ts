import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { putBalances } from '../../src/db/queries/write-tokens.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { ACTIONS } from '../../src/api/routes/etherscan/actions.js';
import { addressOf, blockRow, hashOf, seedChainTokens } from '../support/seed.js';
import {
  assertWire,
  blockNotFoundSchema,
  blocksPageSchema,
  holdersPageSchema,
  latestBlocksSchema,
  messageSchema,
  singleBlockSchema,
  validationSchema,
} from '../api/wire-schema.js';

const CHAIN = 1;
const TOKEN = addressOf(1, 'token');
const MINER = addressOf(1, 'miner');
const RUNS = Number(process.env.FUZZ_RUNS ?? (process.env.RELIABILITY_FULL ? 50_000 : 10_000));

const hex40 = fc.stringMatching(/^[0-9a-fA-F]{40}$/);
const hostile = fc.oneof(
  fc.string(),
  fc.string({ unit: 'grapheme', maxLength: 50 }),
  fc.constantFrom("' OR 1=1 --", '"; DROP TABLE blocks; --', '%00', '\u0000', '../../etc/passwd', '${jndi:x}', 'null', ''),
  fc.bigInt({ min: -(2n ** 300n), max: 2n ** 300n }).map(String),
  fc.double().map(String),
  fc.string({ minLength: 1_000, maxLength: 9_000 }),
);
const hashLike = fc.oneof(hex40.map((h) => `0x${h}`), hex40.map((h) => `0X${h}`), hostile, fc.constant(TOKEN), fc.constant(MINER));
// the single-block route's parameter: numbers in and around the stored range, 32-byte hashes
const blockRef = fc.oneof(
  fc.bigInt({ min: -5n, max: 40n }).map(String),
  fc.stringMatching(/^[+-]?0*[0-9]{1,3}$/),
  fc.stringMatching(/^0[xX][0-9a-fA-F]{62,66}$/),
  fc.constant(hashOf(31, 'orphan')),
  hostile,
);
const paramName = fc.oneof(
  fc.constantFrom('apikey', 'key', 'items_count', 'value', 'address_hash', 'token_id', 'block_number', 'module', 'action', 'page', 'offset', 'type'),
  // the Etherscan-style actions' names, in any letter case
  fc.constantFrom('contractaddress', 'ContractAddress', 'address', 'chainid', 'sort', 'blocktype', 'tag', 'blockno', 'timestamp', 'closest', 'APIKEY', 'apiKey'),
  fc.string({ maxLength: 20 }),
);
// a real module/action pair, so the actions themselves meet the hostile values
const call = fc.option(fc.constantFrom(...ACTIONS.map((a) => [a.module, a.action] as const)));
const query = fc.array(fc.tuple(paramName, fc.oneof(hostile, fc.integer().map(String))), { maxLength: 6 });
const request = fc.record({
  route: fc.constantFrom('holders', 'blocks', 'block', 'blocks-list', 'latest-blocks', 'etherscan', 'etherscan-v2'),
  call,
  chain: fc.oneof(fc.constant(String(CHAIN)), hostile),
  hash: hashLike,
  block: blockRef,
  query,
  withKey: fc.boolean(),
  header: fc.option(fc.tuple(fc.constantFrom('x-api-key', 'authorization', 'x-forwarded-for', 'accept'), fc.string({ maxLength: 5_000 }))),
});

type GeneratedRequest = typeof request extends fc.Arbitrary<infer T> ? T : never;

function urlFor(r: GeneratedRequest): string {
  const params = new URLSearchParams();
  if (r.withKey) params.append('apikey', TEST_KEY);
  if (r.call && r.route.startsWith('etherscan')) {
    params.append('module', r.call[0]);
    params.append('action', r.call[1]);
  }
  if (r.route === 'etherscan-v2') params.append('chainid', r.chain);
  for (const [k, v] of r.query) params.append(k, v);
  const chain = encodeURIComponent(r.chain);
  const hash = encodeURIComponent(r.hash);
  const paths: Record<GeneratedRequest['route'], string> = {
    holders: `/${chain}/api/v2/tokens/${hash}/holders`,
    blocks: `/${chain}/api/v2/addresses/${hash}/blocks-validated`,
    block: `/${chain}/api/v2/blocks/${encodeURIComponent(r.block)}`,
    'blocks-list': `/${chain}/api/v2/blocks`,
    'latest-blocks': `/${chain}/api/v2/main-page/blocks`,
    etherscan: `/${chain}/api`,
    'etherscan-v2': '/v2/api',
  };
  const path = paths[r.route];
  return `${path}?${params}`;
}

describe('hostile input: every answer is a documented 4xx or a valid 200, never a 5xx', () => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi('pglite');
    await seedChainTokens(api.db, CHAIN, [{ address: TOKEN, type: 'ERC-1155', name: 'T', symbol: 'T', decimals: 0 }]);
    await putBalances(api.db, Array.from({ length: 30 }, (_, i) => ({ chainId: CHAIN, token: TOKEN, holder: addressOf(i % 7), tokenId: BigInt(i), value: BigInt(1 + (i % 3)), blockNumber: 1n })));
    await upsertBlocks(api.db, [
      ...Array.from({ length: 30 }, (_, i) => blockRow(CHAIN, i + 1, MINER)),
      // a height where only a non-consensus block is known: 404 "Block lost consensus"
      blockRow(CHAIN, 31, MINER, { hash: hashOf(31, 'orphan'), consensus: false }),
    ]);
  });
  afterAll(() => api?.close());

  it(`${RUNS} generated requests`, async () => {
    const statuses = new Map<number, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const headers: Record<string, string> = {};
        if (r.header) headers[r.header[0]] = r.header[1].replace(/[^\x20-\x7e]/g, '');
        const res = await api.app.inject({ method: 'GET', url: urlFor(r), headers });
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
        expect(res.statusCode).toBeLessThan(500);
        const body = res.json();
        // "Unexpected field: <name>" echoes the request's own parameter name: not a leak
        const own = res.statusCode === 422 ? body.errors.filter((e: { detail: string }) => !e.detail.startsWith('Unexpected field: ')) : body;
        expect(JSON.stringify(own)).not.toMatch(/at .*\.(ts|js):\d+|stack|pg_|PGlite/i);
        if (res.statusCode === 422) assertWire(validationSchema, body);
        else if (res.statusCode === 404 && r.route === 'block') assertWire(blockNotFoundSchema, body);
        else if (res.statusCode >= 400) assertWire(messageSchema, body);
        // an empty reference leaves `/blocks/`, which is the list of blocks (trailing slashes are ignored)
        else if (r.route === 'block' && r.block !== '') assertWire(singleBlockSchema, body);
        else if (r.route === 'holders') assertWire(holdersPageSchema, body);
        else if (r.route === 'blocks' || r.route === 'block' || r.route === 'blocks-list') assertWire(blocksPageSchema, body);
        else if (r.route === 'latest-blocks') assertWire(latestBlocksSchema, body);
        else expect(body).toEqual({ status: expect.stringMatching(/^[01]$/), message: expect.any(String), result: expect.anything() });
      }),
      { numRuns: RUNS, seed: Number(process.env.FUZZ_SEED ?? 20261122), endOnFailure: true },
    );
    console.log(`fuzz: ${RUNS} requests, statuses ${JSON.stringify(Object.fromEntries(statuses))}, failures 0`);
    // and it still serves
    const ok = await api.get(`/${CHAIN}/api/v2/addresses/${MINER}/blocks-validated`, { items_count: 1 });
    expect(ok.status).toBe(200);
  }, 300_000);
});
