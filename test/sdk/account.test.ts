import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getAddress } from 'viem';
import { createExplorerClient, NotFoundError, ValidationError } from '../../src/sdk/index.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf } from '../support/seed.js';

const CHAIN = 3;
const TOKEN = addressOf(0, 'sdk-account-token');
const HOLDER = addressOf(1, 'sdk-account');

describe('SDK: the account API', () => {
  let api: TestApi;
  let client: ReturnType<typeof createExplorerClient>;

  beforeAll(async () => {
    api = await startTestApi('pglite');
    await ensureChain(api.db, CHAIN);
    await upsertTokens(api.db, [{ chainId: CHAIN, address: TOKEN, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null }]);
    await putBalances(api.db, [{ chainId: CHAIN, token: TOKEN, holder: HOLDER, tokenId: null, value: 1n, blockNumber: 1n }]);
    await api.app.listen({ host: '127.0.0.1', port: 0 });
    client = createExplorerClient({ baseUrl: `http://127.0.0.1:${(api.app.server.address() as AddressInfo).port}`, apiKey: TEST_KEY });
  });
  afterAll(() => api?.close());

  it('adds, lists, changes and removes private tags and watchlist entries; the holders page shows them to this key', async () => {
    const tag = await client.account.privateTags.add({ address_hash: HOLDER, name: 'my wallet' });
    expect(tag).toEqual({ id: expect.any(Number), address_hash: getAddress(HOLDER), name: 'my wallet' });
    const watched = await client.account.watchlist.add({ address_hash: HOLDER, name: 'watch me' });
    expect((await client.account.privateTags.list()).items).toEqual([tag]);
    const [row] = (await client.holders(CHAIN, TOKEN)).items;
    expect(row!.address.private_tags).toEqual([{ address_hash: getAddress(HOLDER), display_name: 'my wallet', label: 'my wallet' }]);
    expect(row!.address.watchlist_names).toEqual([{ display_name: 'watch me', label: 'watch me' }]);
    expect(await client.account.privateTags.update(tag.id, { address_hash: HOLDER, name: 'renamed' })).toMatchObject({ name: 'renamed' });
    await expect(client.account.privateTags.add({ address_hash: HOLDER, name: 'x'.repeat(36) })).rejects.toBeInstanceOf(ValidationError);
    await client.account.watchlist.remove(watched.id);
    await expect(client.account.watchlist.remove(watched.id)).rejects.toBeInstanceOf(NotFoundError);
    expect((await client.account.watchlist.list()).items).toEqual([]);
  });
});
