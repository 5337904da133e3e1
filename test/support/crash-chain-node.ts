import { afterAll, beforeAll } from 'vitest';
import { startTestNode, type TestNode } from './anvil.js';
import { buildCrashChain, type CrashChain } from './crash-harness.js';

/** A node and the chain built on it, filled in by beforeAll. */
export interface CrashChainNode {
  node: TestNode;
  chain: CrashChain;
}

/**
 * One anvil node per describe block with {@link buildCrashChain}'s chain on it, stopped in
 * afterAll: the setup of the suites that index one bulky chain through a proxy (remote-node,
 * rpc-faults). Apart from crash-harness.ts, whose functions take no part in the test's hooks.
 */
export function useCrashChainNode(opts: Parameters<typeof buildCrashChain>[1], timeoutMs = 300_000): CrashChainNode {
  const fixture = {} as CrashChainNode;
  beforeAll(async () => {
    fixture.node = await startTestNode();
    fixture.chain = await buildCrashChain(fixture.node, opts);
  }, timeoutMs);
  afterAll(async () => {
    await fixture.node?.stop();
  });
  return fixture;
}
