/**
 * The start banner goes to stdout, which is the log under a service manager: it shows the demo's
 * own key and never a configured one (README: apiKeys are never echoed).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { bannerText, demoKey } from '../../src/cli/banner.js';
import { loadConfig } from '../../src/config/config.js';

const dir = mkdtempSync(join(tmpdir(), 'banner-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STATIC = 'opsStaticKey_123456';
const CHAINS = '31337=http://127.0.0.1:8545';
const config = (env: Record<string, string>) =>
  loadConfig({}, { EXPLORER_CHAINS: CHAINS, EXPLORER_DATA_DIR: dir, EXPLORER_API_KEYS: STATIC, ...env });

describe('the start banner', () => {
  it('on a real chain shows no configured key, in the curl lines either', () => {
    const text = bannerText(config({}), null);
    expect(text).not.toContain(STATIC);
    expect(text).toContain('<one of your apiKeys (not shown)>');
    expect(text).toContain('apikey=<key>');
  });

  it('names every chain served, not only the first', () => {
    const text = bannerText(config({ EXPLORER_CHAINS: '424242=http://127.0.0.1:8545,4201=http://127.0.0.1:8546' }), null);
    expect(text).toContain('  Chains         424242, 4201\n');
    expect(bannerText(config({}), null)).toContain('  Chain          31337\n');
  });

  it('without keys says how to make one on the data directory in use', () => {
    const text = bannerText(loadConfig({}, { EXPLORER_CHAINS: CHAINS, EXPLORER_DATA_DIR: dir }), null);
    expect(text).toContain(`explorer keys create --name me --data-dir ${dir}`);
    // keys the database already holds (created before an upgrade, say): no "create one"
    const held = bannerText(loadConfig({}, { EXPLORER_CHAINS: CHAINS, EXPLORER_DATA_DIR: dir }), null, 2);
    expect(held).toContain('one of the 2 keys created with explorer keys create');
    expect(held).not.toContain('none yet');
  });

  it('for the demo shows the demo key, kept across starts, not the configured one', () => {
    const key = demoKey(config({}));
    expect(key).toMatch(/^demo_[0-9a-f]{32}$/);
    expect(demoKey(config({}))).toBe(key);
    const text = bannerText(config({}), { token: '0xt', miner: '0xm', key });
    expect(text).toContain(`API key        ${key}`);
    expect(text).toContain(`apikey=${key}&items_count=5`);
    expect(text).not.toContain(STATIC);
  });
});
