import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { spawn } from 'node:child_process';
import { appendFileSync, copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Hex } from '../../src/db/rows.js';
import { ensureChain } from '../../src/db/queries/chains.js';
import { createApiKey } from '../../src/db/queries/api-keys.js';
import { putBalances, upsertTokens } from '../../src/db/queries/write-tokens.js';
import { upsertAddresses } from '../../src/db/queries/write-addresses.js';
import { upsertBlocks } from '../../src/db/queries/write-blocks.js';
import { exportList, type ExportCliOptions } from '../../src/cli/commands/export.js';
import { statePath } from '../../src/export/state.js';
import { listen, startTestApi, TEST_KEY, type TestApi } from '../support/api.js';
import { addressOf, blockRow } from '../support/seed.js';
import { explorerArgv } from '../support/explorer-command.js';

const CHAIN = 1;
const BIG = addressOf(0, 'export-token:big');
const MULTI = addressOf(0, 'export-token:multi');
/** ERC-1155 with ids 5 and 6, each held by 120 addresses */
const BY_ID = addressOf(0, 'export-token:by-id');
const MINER = addressOf(0, 'export-miner');
const HOLDER_COUNT = 10_000;
const holderAt = (i: number) => addressOf(i, 'export-holder');
// names that CSV has to quote, one with a line break, and some a spreadsheet would run as formulas
const NAMES = ['Plain', 'Comma, Inc.', 'Say "hi"', 'two\nlines', '=HYPERLINK("http://evil.example","claim")', '@SUM(A1)', '+1+1', '-2'];

let api: TestApi;
let baseUrl: string;
let dir: string;

/** Ground truth: the API's own pages, fetched one by one with plain fetch. */
async function apiItems(path: string, query: Record<string, string> = {}): Promise<any[]> {
  const items: any[] = [];
  let params: Record<string, string> = { items_count: '50', ...query };
  for (;;) {
    const url = `${baseUrl}${path}?${new URLSearchParams({ apikey: TEST_KEY, ...params })}`;
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const page = (await res.json()) as { items: any[]; next_page_params: Record<string, string | number> | null };
    items.push(...page.items);
    if (!page.next_page_params) return items;
    params = Object.fromEntries(Object.entries(page.next_page_params).map(([k, v]) => [k, String(v)]));
  }
}
const holdersPath = (token: string) => `/${CHAIN}/api/v2/tokens/${token}/holders`;
const blocksPath = `/${CHAIN}/api/v2/addresses/${MINER}/blocks-validated`;

const quote = (text: string) => (/[",]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);
/** what a spreadsheet would run as a formula is written as text: an apostrophe first */
const asText = (text: string) => (/^[=+\-@]/.test(text) ? `'${text}` : text);
const expectedHolderCsv = (items: any[]) => [
  'address,value,token_id,name,is_contract',
  ...items.map((h) => [h.address.hash, h.value, h.token_id ?? '', quote(asText((h.address.name ?? '').replace(/\n/g, ' '))), String(h.address.is_contract)].join(',')),
];
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').slice(0, -1);
const jsonl = (file: string) => lines(file).map((l) => JSON.parse(l));

const options = (target: string, extra: Partial<ExportCliOptions> = {}): ExportCliOptions => ({
  chain: String(CHAIN), target, url: baseUrl, apiKey: TEST_KEY, pageSize: 50, ...extra,
});

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'explorer-export-'));
  api = await startTestApi('pglite');
  const { db } = api;
  await ensureChain(db, CHAIN);
  await upsertTokens(db, [
    { chainId: CHAIN, address: BIG, type: 'ERC-20', name: null, symbol: null, decimals: null, totalSupply: null },
    { chainId: CHAIN, address: MULTI, type: 'ERC-1155', name: null, symbol: null, decimals: null, totalSupply: null },
    { chainId: CHAIN, address: BY_ID, type: 'ERC-1155', name: null, symbol: null, decimals: null, totalSupply: null },
  ]);
  const balance = (token: Hex, holder: Hex, value: bigint, tokenId: bigint | null = null) => ({
    chainId: CHAIN, token, holder, tokenId, value, blockNumber: 1n,
  });
  await putBalances(db, [
    // values repeat every 101 holders: page boundaries land inside runs of equal values
    ...Array.from({ length: HOLDER_COUNT }, (_, i) => balance(BIG, holderAt(i), BigInt((i * 13) % 101 + 1) * 10n ** 18n)),
    // ERC-1155: 3 holders × 70 ids of equal value, the case (value, holder) cannot page alone
    ...Array.from({ length: 210 }, (_, i) => balance(MULTI, holderAt(i % 3), 2n, BigInt(i))),
    ...Array.from({ length: 240 }, (_, i) => balance(BY_ID, holderAt(i % 120), BigInt((i % 7) + 1), BigInt(5 + Math.floor(i / 120)))),
  ]);
  await upsertAddresses(db, NAMES.map((name, i) => ({
    chainId: CHAIN, hash: holderAt(i), isContract: i % 2 === 0, proxyType: null, implementations: [], name,
    isVerified: false, ensDomainName: null, isScam: false,
  })));
  await upsertBlocks(db, Array.from({ length: 260 }, (_, i) => blockRow(CHAIN, 500 + i, MINER)));
  baseUrl = await listen(api.app);
});
afterAll(async () => {
  await api?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('explorer export', () => {
  let bigItems: any[];
  beforeAll(async () => {
    bigItems = await apiItems(holdersPath(BIG));
    expect(bigItems).toHaveLength(HOLDER_COUNT);
  });

  it('holders of a 10,000-holder token as JSONL: the items as served, each once', async () => {
    const out = join(dir, 'big.jsonl');
    const result = await exportList('holders', options(BIG, { out }));
    expect(result).toMatchObject({ items: HOLDER_COUNT, pages: HOLDER_COUNT / 50, complete: true });
    const written = jsonl(out);
    expect(written).toEqual(bigItems);
    expect(new Set(written.map((h) => h.address.hash.toLowerCase()))).toEqual(
      new Set(Array.from({ length: HOLDER_COUNT }, (_, i) => holderAt(i))),
    );
  });

  it('holders as CSV: address,value,token_id,name,is_contract per API item, names quoted', async () => {
    const out = join(dir, 'big.csv');
    await exportList('holders', options(BIG, { out }));
    expect(lines(out)).toEqual(expectedHolderCsv(bigItems));
    const text = readFileSync(out, 'utf8');
    expect(text).toContain('"Comma, Inc."');
    // no cell starts a formula (outside review: a contract's name is anyone's to choose)
    for (const line of text.split('\n').slice(1, -1)) expect(line.split(',')[3]).not.toMatch(/^"?[=+\-@]/);
    expect(text).toContain(`,"'=HYPERLINK(""http://evil.example"",""claim"")",`);
    expect(text).toContain(`,'@SUM(A1),`);
  });

  it('blocks-validated as CSV and JSONL', async () => {
    const items = await apiItems(blocksPath);
    const outJson = join(dir, 'blocks.jsonl');
    const outCsv = join(dir, 'blocks.csv');
    await exportList('blocks-validated', options(MINER, { out: outJson, pageSize: 17 }));
    await exportList('blocks-validated', options(MINER, { out: outCsv }));
    expect(jsonl(outJson)).toEqual(items);
    const csv = lines(outCsv);
    expect(csv[0]).toBe('height,hash,timestamp,type,transactions_count,gas_used,gas_limit,base_fee_per_gas,burnt_fees,priority_fee,transaction_fees');
    expect(csv.slice(1).map((l) => Number(l.split(',')[0]))).toEqual(items.map((b) => b.height));
    expect(csv[1]!.split(',')[1]).toBe(items[0].hash);
  });

  it('to stdout when there is no --out', async () => {
    const stdout = new PassThrough();
    let text = '';
    stdout.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
    await exportList('holders', options(MULTI, { format: 'jsonl' }), { stdout });
    expect(text.split('\n').slice(0, -1).map((l) => JSON.parse(l))).toEqual(await apiItems(holdersPath(MULTI)));
  });

  it('aborted after 7 pages, a torn last line, then --resume: every holder exactly once', async () => {
    const out = join(dir, 'aborted.jsonl');
    const controller = new AbortController();
    const first = await exportList('holders', options(BIG, { out }), {
      signal: controller.signal,
      onPage: ({ pages }) => pages === 7 && controller.abort(),
    });
    expect(first).toMatchObject({ items: 350, pages: 7, complete: false });
    // a crash in the middle of writing the next record
    appendFileSync(out, '{"address":{"hash":"0x12');
    const second = await exportList('holders', options(BIG, { out, resume: true }));
    expect(second).toMatchObject({ items: HOLDER_COUNT, resumedFrom: 350, complete: true });
    expect(jsonl(out)).toEqual(bigItems);
  });

  it('--resume with another --page-size pages on with the new one', async () => {
    const out = join(dir, 'resized.jsonl');
    const controller = new AbortController();
    await exportList('holders', options(BIG, { out, pageSize: 10 }), { signal: controller.signal, onPage: ({ pages }) => pages === 2 && controller.abort() });
    const second = await exportList('holders', options(BIG, { out, resume: true, pageSize: 50 }));
    expect(second).toMatchObject({ items: HOLDER_COUNT, resumedFrom: 20, pages: Math.ceil((HOLDER_COUNT - 20) / 50), complete: true });
    expect(jsonl(out)).toEqual(bigItems);
  });

  it('a new export refused from its first page leaves no file behind', async () => {
    const out = join(dir, 'refused.csv');
    await expect(exportList('holders', options(addressOf(0, 'export-token:unknown'), { out }))).rejects.toThrow(/Not found/);
    expect([existsSync(out), existsSync(`${out}.state.json`)]).toEqual([false, false]);
  });

  it('a run that died between writing a page and recording it resumes from the last line', async () => {
    const out = join(dir, 'lagging.csv');
    const controller = new AbortController();
    await exportList('holders', options(BIG, { out }), {
      signal: controller.signal,
      onPage: ({ pages }) => {
        if (pages === 3) copyFileSync(statePath(out), `${out}.older`);
        if (pages === 5) controller.abort();
      },
    });
    // the state file says 3 pages while the file holds 5
    copyFileSync(`${out}.older`, statePath(out));
    const result = await exportList('holders', options(BIG, { out, resume: true }));
    expect(result).toMatchObject({ resumedFrom: 250, complete: true });
    expect(lines(out)).toEqual(expectedHolderCsv(bigItems));
  });

  it('ERC-1155 resumed in the middle of a run of equal (value, holder) rows', async () => {
    const items = await apiItems(holdersPath(MULTI));
    const out = join(dir, 'multi.csv');
    const controller = new AbortController();
    await exportList('holders', options(MULTI, { out, pageSize: 20 }), {
      signal: controller.signal,
      onPage: ({ pages }) => pages === 2 && controller.abort(),
    });
    // without a state file the position comes from the last record, token_id included
    rmSync(statePath(out));
    await exportList('holders', options(MULTI, { out, resume: true, pageSize: 20 }));
    expect(lines(out)).toEqual(expectedHolderCsv(items));
    expect(new Set(lines(out).slice(1).map((l) => l.split(',').slice(0, 3).join()))).toHaveProperty('size', 210);
  });

  it('--token-id: one ERC-1155 id\'s holders, aborted and resumed, each once; another id\'s export refused on its file', async () => {
    const items = await apiItems(`/${CHAIN}/api/v2/tokens/${BY_ID}/instances/6/holders`);
    expect(items).toHaveLength(120);
    expect(items.every((i) => i.token_id === '6')).toBe(true);
    const out = join(dir, 'by-id.jsonl');
    const controller = new AbortController();
    await exportList('holders', options(BY_ID, { out, pageSize: 20, tokenId: '6' }), {
      signal: controller.signal,
      onPage: ({ pages }) => pages === 2 && controller.abort(),
    });
    expect(jsonl(out)).toHaveLength(40);
    await expect(exportList('holders', options(BY_ID, { out, resume: true, pageSize: 20, tokenId: '5' }))).rejects.toThrow(/belongs to another export/);
    await exportList('holders', options(BY_ID, { out, resume: true, pageSize: 20, tokenId: '6' }));
    expect(jsonl(out)).toEqual(items);
  });

  it('resuming a finished export fetches nothing; a state file of another export is refused', async () => {
    const out = join(dir, 'done.jsonl');
    await exportList('blocks-validated', options(MINER, { out }));
    const before = readFileSync(out);
    const again = await exportList('blocks-validated', options(MINER, { out, resume: true }));
    expect(again).toMatchObject({ pages: 0, complete: true, items: 260 });
    expect(readFileSync(out)).toEqual(before);
    await expect(exportList('holders', options(BIG, { out, resume: true }))).rejects.toThrow(/belongs to another export/);
  });

  it('--resume on a file that does not exist yet starts from the beginning', async () => {
    const out = join(dir, 'new.csv');
    await exportList('blocks-validated', options(MINER, { out, resume: true }));
    expect(lines(out)).toHaveLength(261);
  });

  it('the CLI process killed mid-export (SIGKILL), then --resume: exactly the full set once', async () => {
    const out = join(dir, 'killed.jsonl');
    // 25 requests/s: 200 pages take ≥ 8 s, so the kill lands mid-export
    const { key } = await createApiKey(api.db, 'export-slow', 25);
    const child = spawn(
      process.execPath,
      explorerArgv(['export', 'holders', '--chain', String(CHAIN), '--token', BIG, '--out', out, '--url', baseUrl, '--page-size', '50']),
      { cwd: process.cwd(), env: { ...process.env, EXPLORER_API_KEY: key }, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const state = existsSync(statePath(out)) ? JSON.parse(readFileSync(statePath(out), 'utf8')) : null;
      if (state && state.items >= 300) break;
      if (child.exitCode !== null) throw new Error(`export exited early: ${stderr}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGKILL');
    await exited;
    const partial = lines(out).length;
    expect(partial).toBeGreaterThanOrEqual(300);
    expect(partial).toBeLessThan(HOLDER_COUNT);

    const result = await exportList('holders', options(BIG, { out, resume: true }));
    expect(result.complete).toBe(true);
    expect(jsonl(out)).toEqual(bigItems);
  });

  it('the CLI says what a 404 means: exit 1, no stack', async () => {
    const unknown = addressOf(0, 'export-token:unknown');
    const child = spawn(process.execPath, explorerArgv(['export', 'holders', '--chain', String(CHAIN), '--token', unknown, '--url', baseUrl]), {
      cwd: process.cwd(),
      env: { ...process.env, EXPLORER_API_KEY: TEST_KEY },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(1);
    // (this server has indexed nothing: no block to take the list at, said on the line before)
    expect(stderr).toMatch(/\nexplorer export: HTTP 404: Not found \(the API serves no such chain, or knows no such token on it\) \(http:\/\/.*\)\n$/);
  });

  it('to a pipe whose reader stops early (`| head`): the export ends quietly, exit 0, no stack', async () => {
    const child = spawn(process.execPath, explorerArgv(['export', 'holders', '--chain', String(CHAIN), '--token', BIG, '--url', baseUrl, '--page-size', '5']), {
      cwd: process.cwd(),
      env: { ...process.env, EXPLORER_API_KEY: TEST_KEY },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    // the first lines read, the reader goes, as `head -2` does
    await new Promise<void>((resolve) => child.stdout.once('data', () => resolve()));
    child.stdout.destroy();
    const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
    expect(code, stderr).toBe(0);
    expect(stderr).not.toMatch(/EPIPE|Error:|\n\s+at /);
  });

  it('without --block, holders are one snapshot at the block indexed when the export began, kept by --resume', async () => {
    const { db } = api;
    const at = 759; // the last seeded block
    let restore = async (): Promise<unknown> => undefined;
    await db.query('UPDATE chains SET indexed_block = $2, history_from = 0 WHERE chain_id = $1', [CHAIN, at]);
    try {
      // once the API's chain registry has seen it
      const reported = async () => ((await (await fetch(`${baseUrl}/health?chain_id=${CHAIN}`)).json()) as any).chains[0].indexed_block;
      await vi.waitFor(async () => expect(await reported()).toBe(at), { timeout: 15_000, interval: 200 });
      const out = join(dir, 'pinned.jsonl');
      const said = new PassThrough();
      let notes = '';
      said.on('data', (chunk: Buffer) => (notes += chunk.toString()));
      // after the first page, a holder not listed yet becomes the richest at the next block, as
      // the indexer writes it: walked live, it would move behind the position and be missed
      const moved = bigItems[5_000]!;
      restore = () => db.query(
        `UPDATE token_balances SET value = $4, block_number = 1 WHERE chain_id = $1 AND token = decode($2, 'hex') AND holder = decode($3, 'hex')`,
        [CHAIN, BIG.slice(2), moved.address.hash.slice(2).toLowerCase(), moved.value],
      ).then(() => db.query('DELETE FROM balance_intervals WHERE chain_id = $1', [CHAIN]));
      const changeAfterFirstPage = async ({ pages }: { pages: number }) => {
        if (pages !== 1) return;
        await db.query(
          `INSERT INTO balance_intervals (chain_id, token, holder, token_id, value, from_block, to_block)
           VALUES ($1, decode($2, 'hex'), decode($3, 'hex'), NULL, $4, 1, $5)`,
          [CHAIN, BIG.slice(2), moved.address.hash.slice(2).toLowerCase(), moved.value, at + 1],
        );
        await db.query(
          `UPDATE token_balances SET value = 10::numeric ^ 30, block_number = $4 WHERE chain_id = $1 AND token = decode($2, 'hex') AND holder = decode($3, 'hex')`,
          [CHAIN, BIG.slice(2), moved.address.hash.slice(2).toLowerCase(), at + 1],
        );
      };
      const controller = new AbortController();
      const first = await exportList('holders', options(BIG, { out }), {
        progressStream: said as unknown as NodeJS.WriteStream,
        signal: controller.signal,
        onPage: (p) => {
          void changeAfterFirstPage(p);
          if (p.pages === 3) controller.abort();
        },
      });
      expect(first.complete).toBe(false);
      expect(notes).toContain(`holders at block ${at}, the last block indexed when this export began`);
      expect(JSON.parse(readFileSync(statePath(out), 'utf8'))).toMatchObject({ block: String(at), pinned: true });
      // the index moves on; the resumed export stays on the block it began at
      await upsertBlocks(db, [blockRow(CHAIN, at + 1, MINER)]);
      await db.query('UPDATE chains SET indexed_block = $2 WHERE chain_id = $1', [CHAIN, at + 1]);
      await vi.waitFor(async () => expect(await reported()).toBe(at + 1), { timeout: 15_000, interval: 200 });
      const rest = await exportList('holders', options(BIG, { out, resume: true }));
      expect(rest).toMatchObject({ items: HOLDER_COUNT, complete: true });
      const written = jsonl(out);
      expect(written.map((h) => [h.address.hash, h.value])).toEqual(bigItems.map((h) => [h.address.hash, h.value]));
    } finally {
      await db.query('UPDATE chains SET indexed_block = NULL, history_from = NULL WHERE chain_id = $1', [CHAIN]);
      await db.query('DELETE FROM blocks WHERE chain_id = $1 AND number = $2', [CHAIN, at + 1]);
      await restore();
    }
  });

  it('a refused request surfaces as the typed error; no key at all is a usage error', async () => {
    await expect(exportList('holders', options(BIG, { apiKey: 'wrong', out: join(dir, 'x.jsonl') }))).rejects.toMatchObject({ status: 401 });
    const saved = process.env.EXPLORER_API_KEY;
    delete process.env.EXPLORER_API_KEY;
    try {
      await expect(exportList('holders', options(BIG, { apiKey: undefined }))).rejects.toThrow(/API key/);
    } finally {
      if (saved !== undefined) process.env.EXPLORER_API_KEY = saved;
    }
    writeFileSync(join(dir, 'unused'), '');
  });
});
