/**
 * ENS primary names against a real ENS on anvil: ENSRegistry (@ensdomains/ens), PublicResolver
 * and ReverseRegistrar (@ensdomains/resolver), as deployed by their own packages' artifacts.
 * The indexer follows the head; after each step the name on the holders page must equal what
 * the node says by the ENS rules (reverse record → resolver → name(), kept if the name's
 * resolver's addr() is the address), read from the contracts with eth_call.
 */
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeFunctionData, keccak256, namehash, toHex, zeroHash, type Abi, type Address, type Hex } from 'viem';
import { contracts } from '../../src/devnet/artifacts.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { startTestApi, type TestApi } from '../support/api.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { DEVNET_CHAIN_ID as CHAIN, startIndexer, type RunningIndexer } from '../support/indexer-harness.js';

const require = createRequire(import.meta.url);
const artifact = (path: string) => {
  const a = require(path) as { abi: Abi; bytecode: Hex };
  return { abi: a.abi, bytecode: a.bytecode };
};
const ENSRegistry = artifact('@ensdomains/ens/build/contracts/ENSRegistry.json');
const PublicResolver = artifact('@ensdomains/resolver/build/contracts/PublicResolver.json');
const ReverseRegistrar = artifact('@ensdomains/resolver/build/contracts/ReverseRegistrar.json');
const label = (l: string) => keccak256(toHex(l));

describe.each(await availableEngines())('ENS primary names on %s', (engine) => {
  let node: TestNode;
  let api: TestApi;
  let run: RunningIndexer;
  let drop: () => Promise<void>;
  let registry: Address;
  let resolver: Address;
  let reverse: Address;
  let token: Address;
  let owner: Address;
  let alice: Address;
  let bob: Address;

  const write = (address: Address, abi: Abi, functionName: string, args: unknown[], from: Address = owner) =>
    node.send({ from, to: address, data: encodeFunctionData({ abi, functionName, args } as never) });
  const read = (address: Address, abi: Abi, functionName: string, args: unknown[]) =>
    node.public.readContract({ address, abi, functionName, args } as never) as Promise<unknown>;

  /** name → address, as an operator of `.eth` would set it up */
  const register = async (name: string, target: Address) => {
    const [sub] = name.split('.');
    await write(registry, ENSRegistry.abi, 'setSubnodeOwner', [namehash('eth'), label(sub!), owner]);
    await write(registry, ENSRegistry.abi, 'setResolver', [namehash(name), resolver]);
    await write(resolver, PublicResolver.abi, 'setAddr', [namehash(name), target]);
  };
  const setPrimary = (who: Address, name: string) => write(reverse, ReverseRegistrar.abi, 'setName', [name], who);

  /** The primary name by the ENS rules, from the node's contracts (eth_call), not from us. */
  const nodeSays = async (who: Address): Promise<string | null> => {
    const reverseNode = namehash(`${who.slice(2).toLowerCase()}.addr.reverse`);
    const r = (await read(registry, ENSRegistry.abi, 'resolver', [reverseNode])) as Address;
    if (BigInt(r) === 0n) return null;
    const name = (await read(r, PublicResolver.abi, 'name', [reverseNode])) as string;
    if (!name) return null;
    const forward = (await read(registry, ENSRegistry.abi, 'resolver', [namehash(name)])) as Address;
    if (BigInt(forward) === 0n) return null;
    const target = (await read(forward, PublicResolver.abi, 'addr', [namehash(name)])) as Address;
    return target.toLowerCase() === who.toLowerCase() ? name : null;
  };
  /** What our holders page shows for each holder, once the indexer has the node's head. */
  const served = async (): Promise<Map<string, string | null>> => {
    await run.caughtUp();
    const res = await api.get(`/${CHAIN}/api/v2/tokens/${token}/holders`);
    expect(res.status).toBe(200);
    return new Map(res.body.items.map((i: any) => [i.address.hash.toLowerCase(), i.address.ens_domain_name]));
  };
  const expectNames = async (expected: Record<string, string | null>) => {
    const page = await served();
    for (const [who, name] of Object.entries(expected)) {
      expect(await nodeSays(who as Address), `node, ${who}`).toBe(name);
      expect(page.get(who.toLowerCase()), `page, ${who}`).toBe(name);
    }
  };

  beforeAll(async () => {
    node = await startTestNode();
    [owner, alice, bob] = node.accounts as [Address, Address, Address];
    registry = (await node.deploy(ENSRegistry as never, [] as never, { from: owner })).address;
    resolver = (await node.deploy(PublicResolver as never, [registry] as never, { from: owner })).address;
    reverse = (await node.deploy(ReverseRegistrar as never, [registry, resolver] as never, { from: owner })).address;
    await write(registry, ENSRegistry.abi, 'setSubnodeOwner', [zeroHash, label('reverse'), owner]);
    await write(registry, ENSRegistry.abi, 'setSubnodeOwner', [namehash('reverse'), label('addr'), reverse]);
    await write(registry, ENSRegistry.abi, 'setSubnodeOwner', [zeroHash, label('eth'), owner]);
    await register('alice.eth', alice);
    await register('alice2.eth', alice);
    await register('bob.eth', alice); // points elsewhere at first
    // alice and bob hold a token, so they are on a holders page
    token = (await node.deploy(contracts.TestERC20, ['Named', 'NAME', 18], { from: owner })).address;
    for (const who of [alice, bob]) {
      await write(token, contracts.TestERC20.abi as Abi, 'mint', [who, 10n ** 18n]);
    }
    const fresh = await freshDatabase(engine);
    drop = fresh.drop;
    api = await startTestApi(engine, { db: fresh.db });
    run = await startIndexer(fresh.db, node.url, { chain: { ens: { registry } } });
  });
  afterAll(async () => {
    await run?.stop();
    await api?.close();
    await drop?.();
    await node?.stop();
  });

  it('set, change and clear a primary name; a name whose forward record points elsewhere is not shown until it points back', async () => {
    await expectNames({ [alice]: null, [bob]: null });
    await setPrimary(alice, 'alice.eth');
    await setPrimary(bob, 'bob.eth'); // bob.eth resolves to alice
    await expectNames({ [alice]: 'alice.eth', [bob]: null });
    await setPrimary(bob, 'alice.eth'); // a name of someone else's
    await setPrimary(alice, 'alice2.eth');
    await expectNames({ [alice]: 'alice2.eth', [bob]: null });
    // the forward side changes: bob.eth now resolves to bob, and bob claims it
    await setPrimary(bob, 'bob.eth');
    await expectNames({ [bob]: null });
    await write(resolver, PublicResolver.abi, 'setAddr', [namehash('bob.eth'), bob]);
    await expectNames({ [bob]: 'bob.eth' });
    // and away again: alice2.eth moved to bob makes alice's claim false
    await write(resolver, PublicResolver.abi, 'setAddr', [namehash('alice2.eth'), bob]);
    await expectNames({ [alice]: null, [bob]: 'bob.eth' });
    await write(resolver, PublicResolver.abi, 'setAddr', [namehash('alice2.eth'), alice]);
    await expectNames({ [alice]: 'alice2.eth' });
    await setPrimary(alice, '');
    await expectNames({ [alice]: null, [bob]: 'bob.eth' });
  });

  it('a reorg across a name change: the orphaned branch\'s change is undone, the new branch\'s applies', async () => {
    await setPrimary(alice, 'alice.eth');
    await expectNames({ [alice]: 'alice.eth' });
    const snapshot = await node.snapshot();
    await setPrimary(alice, 'alice2.eth');
    await setPrimary(bob, '');
    await expectNames({ [alice]: 'alice2.eth', [bob]: null });
    expect(await node.revert(snapshot)).toBe(true);
    // the new branch: longer, without those changes
    await node.mine(4);
    await expectNames({ [alice]: 'alice.eth', [bob]: 'bob.eth' });
    expect(run.logger.find('reorg rolled back').length).toBeGreaterThan(0);
    // a reorg that replaces the head block with one changing the name
    const data = encodeFunctionData({ abi: ReverseRegistrar.abi, functionName: 'setName', args: ['alice2.eth'] } as never);
    await node.mine(1);
    await served();
    await node.reorg(1, [[{ from: alice, to: reverse, data }, 0]]);
    await expectNames({ [alice]: 'alice2.eth', [bob]: 'bob.eth' });
  });
});
