import { describe, expect, it } from 'vitest';
import { parseEther } from 'viem';
import { createRpcClient } from '../../src/rpc/client.js';
import { contracts } from '../../src/devnet/artifacts.js';
import { WrappedNativeTokens } from '../../src/indexer/wrapped-native.js';
import { useTestNode } from '../support/anvil.js';

describe('wrapped native token detection', () => {
  const node = useTestNode();

  // A lagging backend, or a reorg to a shorter chain, leaves the node without the block the
  // probe asks about: that says nothing about the contract and must not blacklist it.
  it('does not reject a WETH it could not ask at the probed block', async () => {
    const { address } = await node().deploy(contracts.WETH9, []);
    const { transactionHash, blockNumber } = await node().send({ to: address, value: parseEther('1') });
    const rpc = createRpcClient({ chainId: node().chain.id, urls: [node().url], retry: { maxRounds: 1 } });
    const logs = (await rpc.getTransactionReceipt(transactionHash))!.logs;
    const weth = address.toLowerCase();
    const wrapped = new WrappedNativeTokens(rpc);

    await wrapped.learnFrom(logs, blockNumber + 1_000n).catch(() => undefined);
    expect(wrapped.set.has(weth)).toBe(false);
    await wrapped.learnFrom(logs, blockNumber);
    expect(wrapped.set.has(weth)).toBe(true);
  });
});
