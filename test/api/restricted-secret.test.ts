import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import * as crypto from 'node:crypto';
import { ensureChain } from '../../src/db/queries/chains.js';
import { availableEngines } from '../support/databases.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';

// Watches the comparison the server makes; it still compares for real.
vi.mock('node:crypto', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:crypto')>();
  return { ...actual, timingSafeEqual: vi.fn(actual.timingSafeEqual) };
});

const CHAIN = 4;
const RESTRICTED = addressOf(1, 'secret-restricted');
const SECRET = 'the-operators-secret-2f9c';
const path = `/${CHAIN}/api/v2/addresses/${RESTRICTED}/blocks-validated`;

describe.each(await availableEngines())('the restricted secret is compared in constant time (%s)', (engine) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startTestApi(engine, { api: { restrictedKey: SECRET, restrictedAddresses: [RESTRICTED] } });
    await ensureChain(api.db, CHAIN);
  });
  afterAll(() => api?.close());

  it('as SHA-256 digests of equal length, through timingSafeEqual, for right and wrong secrets alike', async () => {
    const compare = vi.mocked(crypto.timingSafeEqual);
    const cases: Array<[string, number]> = [
      [SECRET, 200],
      [SECRET.slice(0, -1), 403], // a prefix
      [`${SECRET}x`, 403], // longer
      ['t', 403],
      ['', 403],
    ];
    for (const [presented, status] of cases) {
      compare.mockClear();
      const res = await api.get(path, { key: presented });
      expect(res.status, presented).toBe(status);
      expect(compare, presented).toHaveBeenCalledTimes(1);
      const [a, b] = compare.mock.calls[0]! as [Buffer, Buffer];
      expect([a.length, b.length]).toEqual([32, 32]);
    }
    // no key at all, or a list of them: refused without comparing
    compare.mockClear();
    expect((await api.app.inject({ url: path, headers: { 'x-api-key': TEST_KEY } })).statusCode).toBe(403);
    expect((await api.app.inject({ url: `${path}?key=a&key=b`, headers: { 'x-api-key': TEST_KEY } })).statusCode).toBe(403);
    expect(compare).not.toHaveBeenCalled();
  });
});
