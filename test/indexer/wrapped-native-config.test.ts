/**
 * `wrappedNativeTokens` from the config file reaches the indexer: a wrapped native token that
 * answers neither totalSupply() nor decimals() (so it cannot be recognised by probing) is
 * indexed from its Deposit/Withdrawal events only when the config file names it, and its
 * balances then equal the node's balanceOf.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseEther, type Address } from 'viem';
import { loadConfig } from '../../src/config/config.js';
import { contracts } from '../../src/devnet/artifacts.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { DEVNET_CHAIN_ID, indexToHead } from '../support/indexer-harness.js';

let node: TestNode;
let token: Address;

beforeAll(async () => {
  node = await startTestNode();
  ({ address: token } = await node.deploy(contracts.BareWrappedNative, []));
  await node.send({ to: token, value: parseEther('3'), from: 1 });
  await node.send({ to: token, value: parseEther('5'), from: 2 });
  await node.write({ address: token, abi: contracts.BareWrappedNative.abi, functionName: 'withdraw', args: [parseEther('1')], from: 2 });
}, 120_000);
afterAll(async () => {
  await node?.stop();
});

async function indexedBalances(engine: 'pglite' | 'postgres', configured: boolean): Promise<Map<string, bigint>> {
  const dir = mkdtempSync(join(tmpdir(), 'explorer-wrapped-'));
  const file = join(dir, 'explorer.json');
  const entry = { chainId: DEVNET_CHAIN_ID, rpcUrls: [node.url], ...(configured ? { wrappedNativeTokens: [token] } : {}) };
  writeFileSync(file, JSON.stringify({ chains: [entry] }));
  const chain = loadConfig({ config: file }, {}).chains[0]!;
  const fresh = await freshDatabase(engine);
  try {
    await indexToHead(fresh.db, chain.rpcUrls, { chain: { ...chain, pollIntervalMs: 50 } });
    const rows = await fresh.db.query<{ holder: string; value: string }>(
      `SELECT '0x' || encode(holder, 'hex') AS holder, value::text FROM token_balances WHERE chain_id = $1 AND token = decode($2, 'hex') AND value <> 0`,
      [DEVNET_CHAIN_ID, token.slice(2).toLowerCase()],
    );
    return new Map(rows.map((r) => [r.holder, BigInt(r.value)]));
  } finally {
    await fresh.drop();
  }
}

describe.each(await availableEngines())('wrappedNativeTokens from the config file (%s)', (engine) => {
  it('indexes the configured token\'s wraps, equal to balanceOf; unconfigured, it is not a token', async () => {
    const truth = new Map<string, bigint>();
    for (const holder of [node.accounts[1]!, node.accounts[2]!]) {
      const balance = await node.public.readContract({ address: token, abi: contracts.BareWrappedNative.abi, functionName: 'balanceOf', args: [holder] });
      truth.set(holder.toLowerCase(), balance);
    }
    expect([...truth.values()]).toEqual([parseEther('3'), parseEther('4')]);
    expect(await indexedBalances(engine, true)).toEqual(truth);
    expect(await indexedBalances(engine, false)).toEqual(new Map());
  }, 120_000);
});
