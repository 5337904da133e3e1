/**
 * Real anvil nodes for tests. Process management and the viem helpers live in src/devnet (the demo
 * and the benchmarks use them too); this adds the test-lifecycle glue.
 */
import { afterAll, beforeAll } from 'vitest';
import { startAnvil, type AnvilInstance, type AnvilOptions } from '../../src/devnet/anvil.js';
import { connectDevnet, type DevnetClient } from '../../src/devnet/client.js';

export { resolveAnvilBinary, startAnvil, type AnvilInstance, type AnvilOptions } from '../../src/devnet/anvil.js';
export { connectDevnet, type DevnetClient, type RpcTransaction, type SendOptions } from '../../src/devnet/client.js';

/** A running anvil with viem clients and helpers (mine, setCoinbase, snapshot/revert, reorg, deploy, ...). */
export interface TestNode extends DevnetClient {
  anvil: AnvilInstance;
  stop(): Promise<void>;
}

export async function startTestNode(opts: AnvilOptions = {}): Promise<TestNode> {
  const anvil = await startAnvil(opts);
  try {
    const client = await connectDevnet(anvil.url, { chainId: anvil.chainId });
    return { ...client, anvil, stop: anvil.stop };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}

/**
 * One node per test file: started in beforeAll, stopped in afterAll. Call at the top of a
 * describe block or file; the returned getter throws if used before beforeAll ran.
 */
export function useTestNode(opts: AnvilOptions = {}): () => TestNode {
  let node: TestNode | undefined;
  beforeAll(async () => {
    node = await startTestNode(opts);
  });
  afterAll(async () => {
    await node?.stop();
  });
  return () => {
    if (!node) throw new Error('useTestNode: node not started (used outside a test or hook?)');
    return node;
  };
}
