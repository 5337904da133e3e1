import { describe, expect, it } from 'vitest';
import { startDemoDevnet, waitForBlocks } from '../../src/devnet/index.js';

describe('startDemoDevnet', () => {
  it('starts anvil, deploys the scenario, produces blocks, and stops everything', async () => {
    const demo = await startDemoDevnet({ anvil: { chainId: 1337 }, scenario: { holders: 50, nfts: 5 }, activity: { blocksPerSecond: 25 } });
    let stopped = false;
    try {
      expect(demo.client.chain.id).toBe(1337);
      await waitForBlocks(demo.activity!, 5);
      await demo.stop();
      stopped = true;
      await expect(demo.client.public.getBlockNumber()).rejects.toThrow();
    } finally {
      if (!stopped) await demo.stop();
    }
  });
});
