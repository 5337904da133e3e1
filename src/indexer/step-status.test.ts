import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../db/client.js';
import { ensureChain, listChains } from '../db/queries/chains.js';
import { recordIndexerFailure } from '../db/queries/indexer-status.js';
import { freshDatabase } from '../../test/support/databases.js';
import { FOREIGN_FAILURE_CHECK_MS, StepStatus } from './step-status.js';
import { BlockSealError } from '../evm/block-producer.js';

describe('StepStatus', () => {
  let db: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ db, drop } = await freshDatabase('pglite'));
    await ensureChain(db, 7);
  });
  afterAll(async () => drop());
  const failing = async () => (await listChains(db)).find((c) => c.chainId === 7)!.failingSince !== null;

  it('clears its own failure at the next step that goes through', async () => {
    const status = new StepStatus(db, 7);
    await status.failed(new Error('boom'));
    expect(await failing()).toBe(true);
    await status.succeeded(1_000_000);
    expect(await failing()).toBe(false);
  });

  // Clique review: a block whose seal the chain's blockProducer cannot read was "an internal error"
  it('names a chain whose blocks do not fit its settings as such, not as an internal error', async () => {
    const status = new StepStatus(db, 7);
    await status.failed(new BlockSealError('block 5 has no Clique seal'));
    expect((await listChains(db)).find((c) => c.chainId === 7)!.failure).toBe('settings');
    await status.failed(new Error('boom'));
    expect((await listChains(db)).find((c) => c.chainId === 7)!.failure).toBe('internal');
    await status.succeeded(1_000_000);
  });

  // upgrade review: a frozen writer that resumed after another took over recorded a failure no
  // one cleared, and every replica's /health said 503 for minutes
  it("clears another process's failure within FOREIGN_FAILURE_CHECK_MS of working steps", async () => {
    const status = new StepStatus(db, 7);
    await status.succeeded(1_000_000);
    await recordIndexerFailure(db, 7, 'database');
    await status.succeeded(1_000_000 + FOREIGN_FAILURE_CHECK_MS - 1);
    expect(await failing()).toBe(true);
    await status.succeeded(1_000_000 + FOREIGN_FAILURE_CHECK_MS);
    expect(await failing()).toBe(false);
  });
});
