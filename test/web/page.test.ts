/**
 * The web page end to end, in Debian's headless Chromium driven by playwright-core: the page is
 * built from web/ into a temporary directory (so the test never runs a stale web/dist), served by
 * the real server over a seeded PGlite, and checked against the seeded data. The cases run in
 * order on one page, as a person would use it. Screenshots go to test-artifacts/.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, devices, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { build } from 'vite';
import { formatUnits, getAddress } from 'viem';
import type { FastifyInstance } from 'fastify';
import { buildServer } from '../../src/api/server.js';
import type { Hex } from '../../src/db/rows.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { createApiKey } from '../../src/db/queries/api-keys.js';
import type { Database } from '../../src/db/client.js';
import { setHeadBlock, setIndexedBlock } from '../../src/db/queries/progress.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { upsertAddresses, upsertAddressTags } from '../../src/db/queries/write-addresses.js';
import { freshDatabase } from '../support/databases.js';
import { apiConfig, TEST_KEY } from '../support/api.js';
import { addressOf, blockRow } from '../support/seed.js';

const CHROMIUM = '/usr/bin/chromium';
const ARGS = [
  '--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync',
];
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ARTIFACTS = join(ROOT, 'test-artifacts');

const haveChromium = existsSync(CHROMIUM);
if (!haveChromium && !process.env.CI) {
  console.warn(`[skip] ${CHROMIUM} is missing (npm test's pretest installs it when run as root): the browser test is skipped`);
}

const CHAIN = 1;
const TOKEN = addressOf(0, 'token:web');
const DECIMALS = 6;
const HOLDERS = Array.from({ length: 120 }, (_, i) => addressOf(i, 'web-holder'));
// Strictly decreasing in i, each with a fractional part in 6 decimals.
const valueOf = (i: number) => BigInt((120 - i) ** 3) * 1_000_003n + BigInt((i * 7919) % 1_000_000);
const HELD = HOLDERS.reduce((sum, _, i) => sum + valueOf(i), 0n);
// shares are of the total supply, not of the holders listed on the page: the server's supply is
// what all of them hold, kept as balances change, not what the contract said when its metadata
// was read (more, here)
const SUPPLY = HELD;
const REPORTED = HELD + 5_000_000_000_000n;
const PROXY = HOLDERS[0]!;
const TAGGED = HOLDERS[2]!;
const PROXY_PAGE_2 = HOLDERS[60]!;
const MINER = addressOf(0, 'web-miner');
// held the largest balance from block 5 to block 20 only (history, not the live list)
const LEFT = addressOf(0, 'web-left');
const BLOCKS = 60;
// an ERC-1155 token: holder j holds ids 1..3 in amounts that differ per id, so each id's order differs
const MULTI = addressOf(0, 'token:web-multi');
const MULTI_HOLDERS = Array.from({ length: 12 }, (_, j) => addressOf(j, 'web-multi-holder'));
const MULTI_BALANCES = MULTI_HOLDERS.flatMap((holder, j) =>
  [1n, 2n, 3n].filter((id) => (j + Number(id)) % 4 !== 0).map((id) => ({ holder, id, value: BigInt(((j * 37 + Number(id) * 11) % 50) + 1) })),
);
/** Ground truth for one id: its holders in the API's order (value desc, address desc). */
const multiHoldersOf = (id: bigint) =>
  MULTI_BALANCES.filter((b) => b.id === id).sort((a, b) => (a.value !== b.value ? (a.value > b.value ? -1 : 1) : a.holder.toLowerCase() < b.holder.toLowerCase() ? 1 : -1));

/** Ground truth: the seeded balances in the API's order (value desc, address desc). */
const expectedHolders = HOLDERS.map((hash, i) => ({ hash, value: valueOf(i) })).sort((a, b) =>
  a.value !== b.value ? (a.value > b.value ? -1 : 1) : a.hash < b.hash ? 1 : -1,
);

interface Row {
  rank: string;
  hash: string;
  balance: string;
  share: string;
  tokenId: string | null;
  badges: string[];
  name: string | null;
}

async function holderRows(page: Page): Promise<Row[]> {
  return page.$$eval('#holders-table tbody tr', (trs) =>
    trs.map((tr) => {
      const cell = (label: string) => tr.querySelector(`td[data-label^="${label}"]`);
      return {
        rank: cell('#')?.textContent ?? '',
        hash: cell('Address')?.querySelector('.hash')?.textContent ?? '',
        balance: cell('Balance')?.textContent ?? '',
        share: cell('Share')?.textContent ?? '',
        tokenId: cell('Token ID')?.textContent ?? null,
        badges: [...tr.querySelectorAll('.badge')].map((b) => b.textContent ?? ''),
        name: cell('Address')?.querySelector('.addr-name')?.textContent ?? null,
      };
    }),
  );
}

function expectRowsMatch(rows: Row[], from: number): void {
  rows.forEach((row, i) => {
    const truth = expectedHolders[from + i]!;
    expect(row.rank).toBe(String(from + i + 1));
    expect(row.hash).toBe(getAddress(truth.hash));
    expect(row.balance.replaceAll(',', '')).toBe(formatUnits(truth.value, DECIMALS));
    const exact = (Number(truth.value) / Number(SUPPLY)) * 100;
    if (row.share === '<0.01%') expect(exact).toBeLessThan(0.005);
    else expect(Math.abs(Number(row.share.replace('%', '')) - exact)).toBeLessThan(0.0051);
  });
}

/** The page must not be wider than the screen: nothing to scroll sideways. */
async function horizontalOverflow(page: Page): Promise<number> {
  // a string: the root tsconfig has no DOM types, and this runs in the page
  return page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth');
}

describe.skipIf(!haveChromium && !process.env.CI)('web page in Chromium', () => {
  let app: FastifyInstance;
  let base: string;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let webRoot: string;
  let dropDb: () => Promise<void>;
  let db: Database;
  const problems: string[] = [];

  const api = async (path: string) => {
    const res = await fetch(`${base}${path}`, { headers: { 'x-api-key': TEST_KEY } });
    return res.json() as Promise<any>;
  };
  const shot = (name: string, p: Page = page, fullPage = true) => p.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage });
  const watch = (p: Page) => {
    // CSP violations and script errors surface here; the page must have none.
    p.on('console', (m) => m.type() === 'error' && problems.push(`${m.text()} ${m.location().url}`));
    p.on('pageerror', (e) => problems.push(String(e)));
  };

  beforeAll(async () => {
    if (!haveChromium) throw new Error(`${CHROMIUM} is required under CI (the pretest script installs it as root) and is missing`);
    mkdirSync(ARTIFACTS, { recursive: true });
    webRoot = mkdtempSync(join(tmpdir(), 'explorer-web-'));
    await build({
      root: join(ROOT, 'web'),
      configFile: join(ROOT, 'web/vite.config.ts'),
      logLevel: 'warn',
      build: { outDir: webRoot, emptyOutDir: true },
    });

    const fresh = await freshDatabase('pglite');
    dropDb = fresh.drop;
    db = fresh.db;
    await ensureChain(db, CHAIN);
    await upsertTokens(db, [
      { chainId: CHAIN, address: TOKEN, type: 'ERC-20', name: 'Web Test Dollar', symbol: 'WTD', decimals: DECIMALS, totalSupply: REPORTED },
      { chainId: CHAIN, address: MULTI, type: 'ERC-1155', name: 'Web Test Items', symbol: null, decimals: null, totalSupply: null },
    ]);
    await putBalances(db, MULTI_BALANCES.map((b) => ({ chainId: CHAIN, token: MULTI, holder: b.holder, tokenId: b.id, value: b.value, blockNumber: 1n })));
    await putBalances(db, HOLDERS.map((holder, i) => ({ chainId: CHAIN, token: TOKEN, holder, tokenId: null, value: valueOf(i), blockNumber: 1n })));
    // the token's transfer count as an index from genesis keeps it; MULTI's stays unknown (null)
    await db.query('UPDATE tokens SET transfers_count = 12345 WHERE chain_id = $1 AND address = $2', [CHAIN, Buffer.from(TOKEN.slice(2), 'hex')]);
    const contract = { chainId: CHAIN, isContract: true, isVerified: true, ensDomainName: null, isScam: false };
    await upsertAddresses(db, [
      { ...contract, hash: PROXY, proxyType: 'eip1967', name: 'Vault Proxy', implementations: [{ address: addressOf(1, 'impl'), name: 'VaultImpl' }] },
      { ...contract, hash: PROXY_PAGE_2, proxyType: 'eip1167', name: null, implementations: [{ address: addressOf(2, 'impl'), name: null }] },
    ]);
    const tag = (address: Hex, kind: 'public' | 'metadata', slug: string, name: string) =>
      ({ chainId: CHAIN, address, kind, slug, name, tagType: 'generic', ordinal: 0, meta: {} });
    await upsertAddressTags(db, [
      tag(TAGGED, 'public', 'hot-wallet', 'Hot wallet'),
      tag(TAGGED, 'metadata', 'exchange', 'Exchange'),
      tag(MINER, 'public', 'validator', 'Validator One'),
    ]);
    await upsertBlocks(db, Array.from({ length: BLOCKS }, (_, i) => blockRow(CHAIN, i + 1, MINER)));
    // history: every balance since block 1 (putBalances kept them there), and one holder who
    // held the largest balance from block 5 and left at block 20: at block 10 there are 121
    await db.query('UPDATE chains SET history_from = 1 WHERE chain_id = $1', [CHAIN]);
    await db.query(
      `INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block) VALUES ($1, $2, $3, NULL, $4, 5, 20)`,
      [CHAIN, Buffer.from(TOKEN.slice(2), 'hex'), Buffer.from(LEFT.slice(2), 'hex'), REPORTED.toString()],
    );
    await setIndexedBlock(db, CHAIN, BigInt(BLOCKS));
    await setHeadBlock(db, CHAIN, BigInt(BLOCKS + 2));

    app = await buildServer({ db, api: apiConfig(), webRoot });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const address = app.server.address();
    if (!address || typeof address === 'string') throw new Error('no port');
    base = `http://127.0.0.1:${address.port}`;

    browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
    watch(page);
  });

  afterAll(async () => {
    await browser?.close();
    await app?.close();
    await dropDb?.();
    if (webRoot) rmSync(webRoot, { recursive: true, force: true });
  });

  it('serves the page at / with the chains from /health and a strict content security policy', async () => {
    const res = await page.goto(`${base}/`);
    expect(res?.status()).toBe(200);
    expect(res?.headers()['content-security-policy']).toContain("script-src 'self'");
    await expect.poll(() => page.locator('#chain option').count()).toBe(1);
    expect(await page.locator('#chain').inputValue()).toBe(String(CHAIN));
    expect(await page.locator('#chain option').textContent()).toBe('Ethereum (1) · block 60, 2 behind');
    expect(await page.locator('#key-state').textContent()).toBe('not set');
  });

  it('asks for the key before searching, then keeps it in localStorage', async () => {
    await page.fill('#hash', TOKEN);
    await page.click('#search button[type=submit]');
    await expect.poll(() => page.locator('#message').textContent()).toContain('Enter your API key');
    await page.fill('#api-key', TEST_KEY);
    await page.click('#key-form button[type=submit]');
    expect(await page.evaluate<string | null>("localStorage.getItem('explorer.apiKey')")).toBe(TEST_KEY);
    expect(await page.locator('#key-state').textContent()).toBe('saved in this browser');
  });

  it('token holders: summary, first page and chart match the seeded data and the API', async () => {
    // saving the key re-ran the pending search
    await page.locator('#holders-page', { hasText: 'rows 1–50' }).waitFor();
    expect(await page.locator('#token-summary h2').textContent()).toBe('Web Test Dollar (WTD)');
    // the symbol in the column header as written, not upper-cased with the header (stETH)
    expect(await page.locator('#holders-table th .as-written').textContent()).toBe(' (WTD)');
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector('#holders-table th .as-written')).textTransform")).toBe('none');
    expect(await page.locator('#token-summary dl').textContent()).toContain('Holders120');
    // the transfer count the counters give, as the API serves it
    expect((await api(`/${CHAIN}/api/v2/tokens/${TOKEN}/counters`)).transfers_count).toBe('12345');
    expect(await page.locator('#token-summary dl').textContent()).toContain('Transfers12,345');

    const rows = await holderRows(page);
    expect(rows).toHaveLength(50);
    expectRowsMatch(rows, 0);
    const fromApi = await api(`/${CHAIN}/api/v2/tokens/${TOKEN}/holders`);
    expect(rows.map((r) => r.hash)).toEqual(fromApi.items.map((i: any) => i.address.hash));

    const proxy = rows.find((r) => r.hash === getAddress(PROXY))!;
    expect(proxy.name).toBe('Vault Proxy');
    expect(proxy.badges).toContain('proxy · eip1967');
    const tagged = rows.find((r) => r.hash === getAddress(TAGGED))!;
    expect(tagged.badges).toEqual(expect.arrayContaining(['Hot wallet', 'Exchange']));
    expect(rows.filter((r) => r.badges.length > 0)).toHaveLength(2);

    // the chart reads the first two pages: top 1, 10 and 100 of the total supply
    await page.locator('.tiles li[data-top="100"]').waitFor();
    for (const n of [1, 10, 100]) {
      const text = await page.locator(`.tiles li[data-top="${n}"] strong`).textContent();
      const held = expectedHolders.slice(0, n).reduce((sum, h) => sum + h.value, 0n);
      expect(Math.abs(Number(text!.replace('%', '')) - (Number(held) / Number(SUPPLY)) * 100)).toBeLessThan(0.0051);
    }
    expect(await page.locator('svg.chart circle.mark').count()).toBe(3);
    await shot('holders-desktop');
  });

  it('token holders: next, next, previous, previous over the stack of next_page_params', async () => {
    const prev = page.locator('#holders-prev');
    const next = page.locator('#holders-next');
    expect(await prev.isDisabled()).toBe(true);
    await next.click();
    await page.locator('#holders-page', { hasText: 'rows 51–100' }).waitFor();
    const second = await holderRows(page);
    expectRowsMatch(second, 50);
    expect(second.find((r) => r.hash === getAddress(PROXY_PAGE_2))?.badges).toEqual(['proxy · eip1167']);
    await next.click();
    await page.locator('#holders-page', { hasText: 'rows 101–120' }).waitFor();
    expectRowsMatch(await holderRows(page), 100);
    expect(await next.isDisabled()).toBe(true);
    await prev.click();
    await page.locator('#holders-page', { hasText: 'rows 51–100' }).waitFor();
    expectRowsMatch(await holderRows(page), 50);
    await prev.click();
    await page.locator('#holders-page', { hasText: 'rows 1–50' }).waitFor();
    expectRowsMatch(await holderRows(page), 0);
    expect(await prev.isDisabled()).toBe(true);
    // from the keyboard: the pressed button keeps the focus once the page has loaded (it is
    // disabled meanwhile), so the next key press pages on
    await next.focus();
    await page.keyboard.press('Enter');
    await page.locator('#holders-page', { hasText: 'rows 51–100' }).waitFor();
    await expect.poll(() => page.evaluate<string>('document.activeElement?.id ?? ""')).toBe('holders-next');
    await page.keyboard.press('Enter');
    await page.locator('#holders-page', { hasText: 'rows 101–120' }).waitFor();
    // the last page has no way on: the focus goes to Previous
    await expect.poll(() => page.evaluate<string>('document.activeElement?.id ?? ""')).toBe('holders-prev');
  });

  it('token holders at a past block: the "At block" field shows that block\'s holders, paged, and clears back to today', async () => {
    // a block number is digits, leading zeros allowed; past any chain's height it is refused here
    await page.fill('#holders-block', '99999999999999999');
    await page.click('#holders-at button[type=submit]');
    await expect.poll(() => page.locator('#message').textContent()).toContain("beyond any chain's height");
    await page.fill('#holders-block', '0010');
    await page.click('#holders-at button[type=submit]');
    await page.waitForURL(`**/#/holders/${CHAIN}/${TOKEN}/at/10`);
    await page.locator('#token-summary dl', { hasText: 'Holders at block 10121' }).waitFor();
    await page.locator('#holders-page', { hasText: 'rows 1–50' }).waitFor();
    // transfers are not counted per block: no count at one
    expect(await page.locator('#token-summary dl').textContent()).not.toContain('Transfers');
    const rows = await holderRows(page);
    const fromApi = await api(`/${CHAIN}/api/v2/tokens/${TOKEN}/holders?block_number=10`);
    expect(rows.map((r) => r.hash)).toEqual(fromApi.items.map((i: any) => i.address.hash));
    expect(rows[0]!.hash).toBe(getAddress(LEFT));
    await page.click('#holders-next');
    await page.locator('#holders-page', { hasText: 'rows 51–100' }).waitFor();
    const second = await api(`/${CHAIN}/api/v2/tokens/${TOKEN}/holders?${new URLSearchParams(Object.fromEntries(Object.entries(fromApi.next_page_params as Record<string, unknown>).map(([k, v]) => [k, String(v)])))}`);
    expect((await holderRows(page)).map((r) => r.hash)).toEqual(second.items.map((i: any) => i.address.hash));
    await shot('holders-at-block');

    await page.fill('#holders-block', '');
    await page.click('#holders-at button[type=submit]');
    await page.waitForURL(`**/#/holders/${CHAIN}/${TOKEN}`);
    await page.locator('#token-summary dl', { hasText: 'Holders120' }).waitFor();
    await page.locator('#holders-page', { hasText: 'rows 1–50' }).waitFor();
    expectRowsMatch(await holderRows(page), 0);
  });

  it('an ERC-1155 token: the "Token ID" field lists one id\'s holders, and clears back to every id', async () => {
    // the field is there for ERC-1155 tokens only
    expect(await page.locator('#holders-id-field').isHidden()).toBe(true);
    await page.goto(`${base}/#/holders/${CHAIN}/${MULTI}`);
    await page.locator('#holders-page', { hasText: `rows 1–${MULTI_BALANCES.length}` }).waitFor();
    await page.locator('#holders-id-field').waitFor({ state: 'visible' });
    expect(await page.locator('#token-summary dl').textContent()).toContain('Transfersunknown');
    await page.fill('#holders-token-id', '2x');
    await page.click('#holders-at button[type=submit]');
    await expect.poll(() => page.locator('#message').textContent()).toContain('Enter a token ID');

    // digits as typed, leading zeros allowed; the address bar keeps one spelling
    await page.fill('#holders-token-id', '002');
    await page.click('#holders-at button[type=submit]');
    await page.waitForURL(`**/#/holders/${CHAIN}/${MULTI}/id/2`);
    await page.locator('#token-summary dl', { hasText: 'Token ID2' }).waitFor();
    const truth = multiHoldersOf(2n);
    await page.locator('#holders-page', { hasText: `rows 1–${truth.length}` }).waitFor();
    const rows = await holderRows(page);
    expect(rows.map((r) => r.hash)).toEqual(truth.map((b) => getAddress(b.holder)));
    expect(rows.map((r) => r.balance.replaceAll(',', ''))).toEqual(truth.map((b) => b.value.toString()));
    expect(rows.map((r) => r.tokenId)).toEqual(truth.map(() => '2'));
    // the same rows the API's instance list gives; shares are not made up from the supply of every id
    const fromApi = await api(`/${CHAIN}/api/v2/tokens/${MULTI}/instances/2/holders`);
    expect(rows.map((r) => r.hash)).toEqual(fromApi.items.map((i: any) => i.address.hash));
    expect(rows.every((r) => r.share === '—')).toBe(true);
    await shot('holders-token-id');

    await page.fill('#holders-token-id', '7');
    await page.click('#holders-at button[type=submit]');
    await page.locator('#holders-table', { hasText: 'No address holds token ID 7.' }).waitFor();

    await page.fill('#holders-token-id', '');
    await page.click('#holders-at button[type=submit]');
    await page.waitForURL(`**/#/holders/${CHAIN}/${MULTI}`);
    await page.locator('#holders-page', { hasText: `rows 1–${MULTI_BALANCES.length}` }).waitFor();
    expect((await holderRows(page)).length).toBe(MULTI_BALANCES.length);

    // an id in a link to a token that has none: said so, no list
    await page.goto(`${base}/#/holders/${CHAIN}/${TOKEN}/id/1`);
    await expect.poll(() => page.locator('#message').textContent()).toContain('for ERC-1155 tokens only');
    expect(await page.locator('#holders-table tbody tr').count()).toBe(0);
  });

  it('validated blocks: newest first, gas and fees as the API gives them, paged both ways', async () => {
    await page.locator('.tabs label', { hasText: 'Validated blocks' }).click();
    await page.fill('#hash', MINER);
    await page.click('#search button[type=submit]');
    await page.locator('#blocks-page', { hasText: 'rows 1–50' }).waitFor();
    expect(await page.locator('#holders-view').isHidden()).toBe(true);
    expect(await page.locator('#miner-summary').textContent()).toContain('Validator One');

    const cells = (label: string) => page.locator(`#blocks-table td[data-label="${label}"]`).allTextContents();
    const fromApi = (await api(`/${CHAIN}/api/v2/addresses/${MINER}/blocks-validated`)).items;
    expect(await cells('Height')).toEqual(fromApi.map((b: any) => String(b.height)));
    expect((await cells('Height'))[0]).toBe('60');
    expect(await cells('Txns')).toEqual(fromApi.map((b: any) => String(b.transactions_count)));
    const gas = await cells('Gas used');
    fromApi.forEach((b: any, i: number) => expect(gas[i]).toContain(`${b.gas_used_percentage.toFixed(2)}%`));
    const fees = await page.locator('#blocks-table td[data-label="Fees"] span').evaluateAll((els) => els.map((e) => e.getAttribute('title')));
    fromApi.forEach((b: any, i: number) => expect(fees[i]).toContain(`(${b.transaction_fees} wei)`));
    expect((await cells('Age'))[0]).toMatch(/ y ago$/);
    await shot('blocks-desktop');

    await page.click('#blocks-next');
    await page.locator('#blocks-page', { hasText: 'rows 51–60' }).waitFor();
    expect(await cells('Height')).toEqual(Array.from({ length: 10 }, (_, i) => String(10 - i)));
    expect(await page.locator('#blocks-next').isDisabled()).toBe(true);
    await page.click('#blocks-prev');
    await page.locator('#blocks-page', { hasText: 'rows 1–50' }).waitFor();
    expect((await cells('Height'))[0]).toBe('60');
  });

  it('a reload keeps the key and the search (it is in the address bar)', async () => {
    expect(page.url()).toContain(`#/blocks/${CHAIN}/${MINER}`);
    await page.reload();
    await page.locator('#blocks-page', { hasText: 'rows 1–50' }).waitFor();
    expect(await page.locator('#api-key').inputValue()).toBe(TEST_KEY);
  });

  it('unknown token: a clear message, no table', async () => {
    await page.locator('.tabs label', { hasText: 'Token holders' }).click();
    await page.fill('#hash', addressOf(9, 'no-token'));
    await page.click('#search button[type=submit]');
    await expect.poll(() => page.locator('#message').textContent()).toContain('No token is known at');
    expect(await page.locator('#holders-table tbody tr').count()).toBe(0);
    // blocks of a chain the server does not serve: said so, not a bare "Not found"
    await page.goto(`${base}/#/blocks/999/${MINER}`);
    await expect.poll(() => page.locator('#message').textContent()).toBe('This server serves no chain 999.');
    // a token on such a chain likewise (it said "No token is known … on Chain 999")
    await page.goto(`${base}/#/holders/999/${TOKEN}`);
    await expect.poll(() => page.locator('#message').textContent()).toBe('This server serves no chain 999.');
    await page.goto(`${base}/#/holders/${CHAIN}/${addressOf(9, 'no-token')}`);
    await expect.poll(() => page.locator('#message').textContent()).toContain('No token is known at');
    // no pager left from the list shown before, whose buttons would send its cursor
    expect(await page.locator('#holders-page').textContent()).toBe('');
    expect(await page.locator('#holders-next').isDisabled()).toBe(true);
    expect(await page.locator('#holders-prev').isDisabled()).toBe(true);
  });

  it('a key allowed one request a second sees its list: the page waits out the 429s of asking for a token and its list together', async () => {
    const slow = await createApiKey(db, 'one a second', 1);
    const p = await context.newPage();
    watch(p);
    // the browser logs each 429 as a failed resource: expected here, not a page error
    const before = problems.length;
    try {
      await p.goto(`${base}/`);
      await p.fill('#api-key', slow.key);
      await p.click('#key-form button[type=submit]');
      await p.goto(`${base}/#/holders/${CHAIN}/${TOKEN}`);
      await p.locator('#holders-page', { hasText: 'rows 1–50' }).waitFor({ timeout: 20_000 });
      expect(await holderRows(p)).toHaveLength(50);
    } finally {
      problems.splice(before, problems.length - before, ...problems.slice(before).filter((m) => !m.includes('429')));
      await p.evaluate(`localStorage.setItem('explorer.apiKey', ${JSON.stringify(TEST_KEY)})`);
      await p.close();
    }
  });

  it('the server down while the page loads: the next search asks for the chains again and goes through', async () => {
    const p = await context.newPage();
    watch(p);
    const before = problems.length;
    try {
      await p.route('**/health*', (route) => route.abort());
      await p.goto(`${base}/`);
      await expect.poll(() => p.locator('#message').textContent()).toBe('Cannot reach the server.');
      expect(await p.locator('#chain option').count()).toBe(0);
      await p.unroute('**/health*');
      // (it searched chain "" before: #/holders//0x…, which nothing reads)
      await p.locator('.tabs label', { hasText: 'Token holders' }).click();
      await p.fill('#hash', TOKEN);
      await p.click('#search button[type=submit]');
      await p.locator('#holders-page', { hasText: 'rows 1–50' }).waitFor();
      expect(await p.locator('#chain').inputValue()).toBe(String(CHAIN));
    } finally {
      problems.splice(before, problems.length - before, ...problems.slice(before).filter((m) => !m.includes('health')));
      await p.close();
    }
  });

  it('phone screen: rows as cards, nothing wider than the screen', async () => {
    const phone = await browser.newContext({
      ...devices['Pixel 7'],
      viewport: { width: 360, height: 780 },
      deviceScaleFactor: 2,
      storageState: await context.storageState(),
    });
    try {
      const p = await phone.newPage();
      watch(p);
      await p.goto(`${base}/#/holders/${CHAIN}/${TOKEN}`);
      await p.locator('#holders-page', { hasText: 'rows 1–50' }).waitFor();
      await p.locator('.tiles li[data-top="100"]').waitFor();
      expect(await horizontalOverflow(p)).toBeLessThanOrEqual(0);
      // cards: the header row is hidden and each cell is labelled
      expect(await p.locator('#holders-table thead').evaluate((el) => el.getBoundingClientRect().width)).toBeLessThanOrEqual(1);
      await shot('holders-phone', p, false);
      await p.evaluate("document.getElementById('holders-table').scrollIntoView()");
      await shot('holders-phone-table', p, false);
      await p.goto(`${base}/#/blocks/${CHAIN}/${MINER}`);
      await p.locator('#blocks-page', { hasText: 'rows 1–50' }).waitFor();
      expect(await horizontalOverflow(p)).toBeLessThanOrEqual(0);
      await shot('blocks-phone', p, false);
    } finally {
      await phone.close();
    }
  });

  it('the API docs at /docs render every operation under the same strict policy, unframeable', async () => {
    const docs = await context.newPage();
    watch(docs);
    try {
      const res = await docs.goto(`${base}/docs`);
      expect(res?.status()).toBe(200);
      const headers = res?.headers() ?? {};
      expect(headers['content-security-policy']).toContain("frame-ancestors 'none'");
      expect(headers['content-security-policy']).toContain("script-src 'self'");
      expect(headers['x-frame-options']).toBe('DENY');
      expect(headers['x-content-type-options']).toBe('nosniff');
      await docs.locator('.opblock').first().waitFor();
      const paths = await docs.locator('.opblock-summary-path').allTextContents();
      expect(paths.some((p) => p.includes('/holders'))).toBe(true);
      expect(paths.some((p) => p.includes('/blocks-validated'))).toBe(true);
      await shot('docs', docs);
    } finally {
      await docs.close();
    }
  });

  it('no script error and no blocked resource on any page shown', () => {
    // the expected failures: the unknown token's 404 and the unknown chain's
    const expected = [`/api/v2/tokens/${addressOf(9, 'no-token')}`, `/999/api/v2/addresses/${MINER.toLowerCase()}/blocks-validated`];
    expect(problems.filter((p) => !expected.some((e) => p.toLowerCase().includes(e.toLowerCase())))).toEqual([]);
  });
});
