import { encodeFunctionData, getAddress, parseEther, parseEventLogs, type Address, type Hex } from 'viem';
import { beforeAll, describe, expect, it } from 'vitest';
import { useTestNode } from './anvil.js';
import { loadContracts, type Contracts } from './contracts.js';

const EIP1167_PREFIX = '0x363d3d373d3d3d363d73';
/** bytes32(uint256(keccak256("eip1967.proxy.implementation")) - 1) */
const EIP1967_IMPLEMENTATION_SLOT = '0x360894a13ba1a3210667c828492db98dca3e2076cc3735a920a3ca505d382bbc';

const ALICE = getAddress('0x000000000000000000000000000000000000a11c');
const BOB = getAddress('0x0000000000000000000000000000000000000b0b');

describe('contracts on anvil', () => {
  const node = useTestNode();
  let c: Contracts;
  beforeAll(async () => {
    c = await loadContracts();
  });

  it('TestERC20: balances after mint, transfer and burn are what was sent', async () => {
    const n = node();
    const [me] = n.accounts as [Address];
    const { address } = await n.deploy(c.TestERC20, ['Test', 'TST', 6]);
    const token = { address, abi: c.TestERC20.abi } as const;
    await n.write({ ...token, functionName: 'mint', args: [me, 1_000_000n] });
    const receipt = await n.write({ ...token, functionName: 'transfer', args: [ALICE, 250_000n] });
    await n.write({ ...token, functionName: 'transfer', args: [BOB, 50_000n] });
    await n.write({ ...token, functionName: 'burn', args: [BOB, 20_000n] });
    const balanceOf = (who: Address) => n.public.readContract({ ...token, functionName: 'balanceOf', args: [who] });
    expect(await balanceOf(me)).toBe(700_000n);
    expect(await balanceOf(ALICE)).toBe(250_000n);
    expect(await balanceOf(BOB)).toBe(30_000n);
    expect(await n.public.readContract({ ...token, functionName: 'decimals' })).toBe(6);
    const [transfer] = parseEventLogs({ abi: c.TestERC20.abi, eventName: 'Transfer', logs: receipt.logs });
    expect(transfer?.args).toEqual({ from: getAddress(me), to: ALICE, value: 250_000n });
  });

  it('TestERC721: mint, transfer, burn', async () => {
    const n = node();
    const [me] = n.accounts as [Address];
    const { address } = await n.deploy(c.TestERC721, ['Nft', 'NFT', 'ipfs://x/']);
    const nft = { address, abi: c.TestERC721.abi } as const;
    await n.write({ ...nft, functionName: 'mint', args: [me, 7n] });
    await n.write({ ...nft, functionName: 'safeMint', args: [me, 8n] });
    await n.write({ ...nft, functionName: 'transferFrom', args: [me, ALICE, 7n] });
    await n.write({ ...nft, functionName: 'burn', args: [8n] });
    expect(await n.public.readContract({ ...nft, functionName: 'ownerOf', args: [7n] })).toBe(ALICE);
    expect(await n.public.readContract({ ...nft, functionName: 'balanceOf', args: [me] })).toBe(0n);
    expect(await n.public.readContract({ ...nft, functionName: 'tokenURI', args: [7n] })).toBe('ipfs://x/7');
  });

  it('TestERC1155: mint, safeTransferFrom, safeBatchTransferFrom, burn', async () => {
    const n = node();
    const [me] = n.accounts as [Address];
    const { address } = await n.deploy(c.TestERC1155, ['ipfs://items/{id}.json']);
    const items = { address, abi: c.TestERC1155.abi } as const;
    await n.write({ ...items, functionName: 'mintBatch', args: [me, [1n, 2n, 3n], [100n, 200n, 300n], '0x'] });
    const single = await n.write({ ...items, functionName: 'safeTransferFrom', args: [me, ALICE, 1n, 10n, '0x'] });
    const batch = await n.write({ ...items, functionName: 'safeBatchTransferFrom', args: [me, BOB, [2n, 3n], [20n, 30n], '0x'] });
    await n.write({ ...items, functionName: 'burn', args: [me, 3n, 70n] });
    const balances = await n.public.readContract({
      ...items,
      functionName: 'balanceOfBatch',
      args: [[me, ALICE, me, BOB, me, BOB], [1n, 1n, 2n, 2n, 3n, 3n]],
    });
    expect(balances).toEqual([90n, 10n, 180n, 20n, 200n, 30n]);
    expect(parseEventLogs({ abi: c.TestERC1155.abi, eventName: 'TransferSingle', logs: single.logs })).toHaveLength(1);
    const [tb] = parseEventLogs({ abi: c.TestERC1155.abi, eventName: 'TransferBatch', logs: batch.logs });
    expect(tb?.args.ids).toEqual([2n, 3n]);
  });

  it('WETH9: deposit and withdrawal events and balances', async () => {
    const n = node();
    const [me] = n.accounts as [Address];
    const { address } = await n.deploy(c.WETH9, []);
    const weth = { address, abi: c.WETH9.abi } as const;
    const dep = await n.send({ to: address, value: parseEther('3') });
    const wd = await n.write({ ...weth, functionName: 'withdraw', args: [parseEther('1')] });
    await n.write({ ...weth, functionName: 'transfer', args: [ALICE, parseEther('0.5')] });
    expect(parseEventLogs({ abi: c.WETH9.abi, eventName: 'Deposit', logs: dep.logs })[0]?.args).toEqual({
      dst: getAddress(me),
      wad: parseEther('3'),
    });
    expect(parseEventLogs({ abi: c.WETH9.abi, eventName: 'Withdrawal', logs: wd.logs })[0]?.args.wad).toBe(parseEther('1'));
    expect(await n.public.readContract({ ...weth, functionName: 'balanceOf', args: [me] })).toBe(parseEther('1.5'));
    expect(await n.public.readContract({ ...weth, functionName: 'totalSupply' })).toBe(parseEther('2'));
  });

  it('CloneFactory: the clone is EIP-1167 bytecode pointing at the implementation and works as an ERC-20', async () => {
    const n = node();
    const [me] = n.accounts as [Address];
    const { address: implementation } = await n.deploy(c.InitializableERC20, []);
    const { address: factory } = await n.deploy(c.CloneFactory, [implementation]);
    const receipt = await n.write({
      address: factory,
      abi: c.CloneFactory.abi,
      functionName: 'createClone',
      args: ['Clone', 'CLN', 18, me, 1000n],
    });
    const [created] = parseEventLogs({ abi: c.CloneFactory.abi, eventName: 'CloneCreated', logs: receipt.logs });
    const clone = created!.args.clone;
    const code = (await n.public.getCode({ address: clone })) as Hex;
    expect(code.startsWith(EIP1167_PREFIX)).toBe(true);
    expect(code.slice(EIP1167_PREFIX.length, EIP1167_PREFIX.length + 40)).toBe(implementation.slice(2).toLowerCase());
    expect(code.length).toBe(2 + 45 * 2);
    const token = { address: clone, abi: c.InitializableERC20.abi } as const;
    expect(await n.public.readContract({ ...token, functionName: 'symbol' })).toBe('CLN');
    await n.write({ ...token, functionName: 'transfer', args: [ALICE, 400n] });
    expect(await n.public.readContract({ ...token, functionName: 'balanceOf', args: [ALICE] })).toBe(400n);
    expect(await n.public.readContract({ ...token, functionName: 'balanceOf', args: [me] })).toBe(600n);
  });

  it('Proxy1967: the EIP-1967 slot holds the implementation, also after an upgrade', async () => {
    const n = node();
    const [me] = n.accounts as [Address];
    const { address: v1 } = await n.deploy(c.InitializableERC20, []);
    const init = encodeFunctionData({ abi: c.InitializableERC20.abi, functionName: 'initialize', args: ['Proxied', 'PRX', 18, me, 500n] });
    const { address: proxy } = await n.deploy(c.Proxy1967, [v1, init]);
    const slot = async () => getAddress(`0x${((await n.public.getStorageAt({ address: proxy, slot: EIP1967_IMPLEMENTATION_SLOT })) ?? '0x').slice(26)}`);
    expect(await slot()).toBe(v1);
    const token = { address: proxy, abi: c.InitializableERC20.abi } as const;
    expect(await n.public.readContract({ ...token, functionName: 'name' })).toBe('Proxied');
    await n.write({ ...token, functionName: 'transfer', args: [BOB, 5n] });

    const { address: v2 } = await n.deploy(c.InitializableERC20, []);
    const upgrade = await n.write({ ...token, functionName: 'upgradeToAndCall', args: [v2, '0x'] });
    expect(parseEventLogs({ abi: c.InitializableERC20.abi, eventName: 'Upgraded', logs: upgrade.logs })[0]?.args.implementation).toBe(v2);
    expect(await slot()).toBe(v2);
    // Storage lives in the proxy, so balances survive the upgrade.
    expect(await n.public.readContract({ ...token, functionName: 'balanceOf', args: [BOB] })).toBe(5n);
  });

  it('AirdropToken: one transaction emits a Transfer per recipient, then moves balances between holders', async () => {
    const n = node();
    const { address } = await n.deploy(c.AirdropToken, ['Drop', 'DRP', 18]);
    const token = { address, abi: c.AirdropToken.abi } as const;
    const holders = Array.from({ length: 50 }, (_, i) => getAddress(`0x${(0x1000 + i).toString(16).padStart(40, '0')}`));
    const minted = await n.write({ ...token, functionName: 'airdrop', args: [holders, holders.map((_, i) => BigInt(100 + i))] });
    expect(parseEventLogs({ abi: c.AirdropToken.abi, eventName: 'Transfer', logs: minted.logs })).toHaveLength(50);
    const moved = await n.write({
      ...token,
      functionName: 'shuffle',
      args: [holders.slice(0, 25), holders.slice(25), holders.slice(0, 25).map(() => 100n)],
    });
    const transfers = parseEventLogs({ abi: c.AirdropToken.abi, eventName: 'Transfer', logs: moved.logs });
    expect(transfers).toHaveLength(25);
    expect(transfers[0]?.args).toEqual({ from: holders[0], to: holders[25], value: 100n });
    expect(await n.public.readContract({ ...token, functionName: 'balanceOf', args: [holders[0]!] })).toBe(0n);
    expect(await n.public.readContract({ ...token, functionName: 'balanceOf', args: [holders[25]!] })).toBe(225n);
    await expect(
      n.write({ ...token, functionName: 'shuffle', args: [[holders[0]!], [holders[1]!], [1n]] }),
    ).rejects.toThrow();
  });
});
