/**
 * Starting past block 0 leaves older tokens' holder lists incomplete (README, "Starting past
 * block 0"): the indexer says so once, at the chain's first start, and not when it resumes; a
 * start block changed once the chain is indexed is not applied, and it says that at every start.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { contracts } from '../../src/devnet/artifacts.js';
import { deriveAddress } from '../../src/devnet/random.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { freshDatabase } from '../support/databases.js';
import { CapturingLogger, startIndexer } from '../support/indexer-harness.js';

const WARNING = /^starting past block 0: a token created before the start block will list only the holders that moved since/;
const CHANGED = /^this chain was indexed from block (\d+); startBlock (\d+) applies to a chain indexed afresh only: `explorer chains remove \d+ --yes`/;

describe('--start-block above 0', () => {
  let node: TestNode;
  beforeAll(async () => {
    node = await startTestNode();
    await node.mine(6);
  });
  afterAll(async () => {
    await node?.stop();
  });

  it('warns at the first start only; from block 0 it never does', async () => {
    const { db, drop } = await freshDatabase('pglite');
    try {
      const warnings = async (startBlock: bigint) => {
        const logger = new CapturingLogger();
        const run = await startIndexer(db, node.url, { chain: { startBlock }, logger });
        await run.caughtUp();
        await run.stop();
        return {
          first: logger.entries.filter((e) => WARNING.test(e.msg)).map((e) => e.obj.startBlock),
          changed: logger.entries.filter((e) => CHANGED.test(e.msg)).map((e) => [e.obj.indexedFrom, e.obj.startBlock]),
        };
      };
      expect(await warnings(3n)).toEqual({ first: ['3'], changed: [] });
      await node.mine(2);
      expect(await warnings(3n)).toEqual({ first: [], changed: [] });
      // a start block changed afterwards is not applied, and said so at every start (L2 review)
      await node.mine(1);
      expect(await warnings(0n)).toEqual({ first: [], changed: [['3', '0']] });
      expect(await warnings(5n)).toEqual({ first: [], changed: [['3', '5']] });
    } finally {
      await drop();
    }
    const zero = await freshDatabase('pglite');
    try {
      const logger = new CapturingLogger();
      const run = await startIndexer(zero.db, node.url, { logger });
      await run.caughtUp();
      await run.stop();
      expect(logger.entries.filter((e) => WARNING.test(e.msg))).toEqual([]);
    } finally {
      await zero.drop();
    }
  }, 120_000);

  it('counts no token\'s transfers (null, not a part of them), also after a restart that asks for block 0', async () => {
    const { db, drop } = await freshDatabase('pglite');
    const mintedToken = async (name: string) => {
      const { address } = await node.deploy(contracts.TestERC20, [name, name, 18]);
      await node.write({ address, abi: contracts.TestERC20.abi, functionName: 'mint', args: [deriveAddress(name, 0), 10n ** 18n] });
      return address.toLowerCase();
    };
    const counts = async () =>
      new Map(
        (await db.query<{ token: string; n: string | null }>("SELECT '0x' || encode(address, 'hex') AS token, transfers_count::text AS n FROM tokens")).map((r) => [r.token, r.n]),
      );
    try {
      const before = await mintedToken('Before');
      const start = (await node.public.getBlockNumber()) + 1n;
      const after = await mintedToken('After');
      const index = async (startBlock: bigint) => {
        const run = await startIndexer(db, node.url, { chain: { startBlock } });
        await run.caughtUp();
        await run.stop();
      };
      await index(start);
      // the token minted before the start is not seen; the one after is, uncounted
      expect(await counts()).toEqual(new Map([[after, null]]));
      const later = await mintedToken('Later');
      await index(0n);
      expect(await counts()).toEqual(new Map([[after, null], [later, null]]));
      expect((await counts()).has(before)).toBe(false);
    } finally {
      await drop();
    }
  }, 120_000);
});
