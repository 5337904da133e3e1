/**
 * `explorer labels import|list|remove` through the real command (a child process) on both
 * engines: a file round-trips through import and list, a malformed file changes nothing and
 * names its line, remove takes a label off.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { runCli } from '../support/cli.js';
import { addressOf } from '../support/seed.js';

const A = addressOf(1, 'cli-label');
const B = addressOf(2, 'cli-label');
const ENTRIES = [
  { chain_id: 1, address: A, name: 'Treasury', public_tags: [{ display_name: 'DAO', label: 'dao' }], metadata_tags: [{ name: 'Gov', slug: 'gov', ordinal: 0, tagType: 'protocol', meta: { main_entity: 'DAO' } }], is_scam: false },
  { chain_id: 10, address: B, name: null, public_tags: [], metadata_tags: [], is_scam: true },
];

describe.each(await availableEngines())('labels CLI on %s', async (engine) => {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-labels-'));
  const fresh = engine === 'postgres' ? await freshDatabase('postgres') : null;
  const env: Record<string, string> = fresh ? { DATABASE_URL: fresh.url! } : {};
  const cli = (...args: string[]) => runCli([...args, ...(fresh ? [] : ['--data-dir', join(dir, 'data')])], { cwd: dir, env, timeoutMs: 120_000 });
  afterAll(() => fresh?.drop());

  it('import → list gives the file back; a bad file is refused whole with its line; remove', async () => {
    const file = join(dir, 'labels.json');
    writeFileSync(file, JSON.stringify(ENTRIES, null, 2));
    const imported = await cli('labels', 'import', file);
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toBe('imported 2 labels\n');
    const list = await cli('labels', 'list');
    expect(JSON.parse(list.stdout)).toEqual(ENTRIES);

    const bad = join(dir, 'bad.csv');
    writeFileSync(bad, `chain_id,address,name\n1,${A},Renamed\n1,0x1234,Short\n`);
    const refused = await cli('labels', 'import', bad);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toMatch(/^explorer: .*bad\.csv: line 3: address: expected .*; nothing was imported\n$/);

    // (each call is a Node and database start-up: a few, on a busy machine a minute each)
    expect((await cli('labels', 'remove', B, '--chain-id', '10')).code).toBe(0);
    expect(JSON.parse((await cli('labels', 'list')).stdout)).toEqual([ENTRIES[0]]);
  }, 300_000);
});
