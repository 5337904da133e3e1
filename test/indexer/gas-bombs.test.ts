/**
 * Contracts whose every call runs out of gas (test/support/hostile/GasBombs.sol), which anyone
 * can deploy, against a real anvil: the indexer must take the failure as the contract's answer
 * and go on. Before, anvil's `EVM error OutOfGas` (-32603) read as a node fault and was retried
 * for ever, so one such contract stopped the chain (outside review): a balanceOf asked to repair
 * a balance driven negative, a Deposit event from a contract probed for totalSupply/decimals, a
 * name() asked by the metadata round (which then held every other token's metadata back). And
 * amounts whose sums outgrow uint256 (migration 029): they stopped the chain the same way. A
 * balanceOf that fails with revm's InvalidOperandOOG rather than OutOfGas, likewise (review).
 */
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { maxUint256, zeroAddress, type Address } from 'viem';
import { contracts } from '../../src/devnet/artifacts.js';
import { startTestNode, type TestNode } from '../support/anvil.js';
import { availableEngines, freshDatabase } from '../support/databases.js';
import { DEVNET_CHAIN_ID, indexAndEnrich } from '../support/indexer-harness.js';
import { compileSolidityFile } from '../support/solidity.js';

const bombs = compileSolidityFile(fileURLToPath(new URL('../support/hostile/GasBombs.sol', import.meta.url)));

let node: TestNode;
let token: Address;
let operand: Address;
let deposit: Address;
let plain: Address;
let head: bigint;

beforeAll(async () => {
  node = await startTestNode();
  ({ address: token } = await node.deploy(bombs.GasBombToken!, []));
  ({ address: deposit } = await node.deploy(bombs.GasBombDeposit!, []));
  const [a, b, c] = [node.accounts[1]!, node.accounts[2]!, node.accounts[3]!];
  // a's balance driven negative: repaired from balanceOf, which never answers
  await node.write({ address: token, abi: bombs.GasBombToken!.abi, functionName: 'emitTransfer' as never, args: [a, b, 5n, 1n] as never });
  // amounts no real token can hold: ten mints of 2^256 − 1 to each of six holders (their sums
  // outgrew numeric(78,0), and the batch failed for ever, before migration 029)
  for (const holder of node.accounts.slice(4)) {
    await node.write({ address: token, abi: bombs.GasBombToken!.abi, functionName: 'emitTransfer' as never, args: [zeroAddress, holder, maxUint256, 10n] as never });
  }
  // a Deposit from a contract that is probed as a wrapped native token, and never answers
  await node.write({ address: deposit, abi: bombs.GasBombDeposit!.abi, functionName: 'emitDeposit' as never, args: [c, 7n] as never });
  // an honest token after them: its balances and metadata must still come
  ({ address: plain } = await node.deploy(contracts.TestERC20, ['Plain', 'PLN', 18]));
  await node.write({ address: plain, abi: contracts.TestERC20.abi, functionName: 'mint', args: [c, 1_000n] });
  // a balance driven negative again, repaired from a balanceOf that fails with revm's
  // InvalidOperandOOG, not OutOfGas (a review's token held a rollback for ever with it: it read as
  // a node fault). Last, so the blocks above keep their batches.
  ({ address: operand } = await node.deploy(bombs.OperandBombToken!, []));
  await node.write({ address: operand, abi: bombs.OperandBombToken!.abi, functionName: 'emitTransfer' as never, args: [a, b, 3n] as never });
  head = await node.public.getBlockNumber();
}, 120_000);
afterAll(() => node?.stop());

describe.each(await availableEngines())('contracts whose calls run out of gas (%s)', (engine) => {
  it('are answered as failed calls: the chain is indexed to the head, every token enriched', async () => {
    const fresh = await freshDatabase(engine);
    try {
      await indexAndEnrich(fresh.db, node.url);
      const [progress] = await fresh.db.query<{ indexed: string }>('SELECT indexed_block::text AS indexed FROM chains WHERE chain_id = $1', [DEVNET_CHAIN_ID]);
      expect(BigInt(progress!.indexed)).toBeGreaterThanOrEqual(head);
      const tokens = await fresh.db.query<{ address: string; name: string | null; metadata_fetched: boolean }>(
        "SELECT '0x' || encode(address, 'hex') AS address, name, metadata_fetched FROM tokens WHERE chain_id = $1 ORDER BY name",
        [DEVNET_CHAIN_ID],
      );
      // the Deposit's contract answers no totalSupply: not a wrapped native token, so no token
      expect(tokens.map((t) => t.address)).not.toContain(deposit.toLowerCase());
      expect(tokens).toEqual(
        expect.arrayContaining([
          { address: token.toLowerCase(), name: null, metadata_fetched: true },
          { address: plain.toLowerCase(), name: 'Plain', metadata_fetched: true },
        ]),
      );
      const balances = await fresh.db.query<{ token: string; holder: string; value: string }>(
        "SELECT '0x' || encode(token, 'hex') AS token, '0x' || encode(holder, 'hex') AS holder, value::text FROM token_balances WHERE chain_id = $1 AND value <> 0",
        [DEVNET_CHAIN_ID],
      );
      const of = (t: Address, h: Address) => balances.find((r) => r.token === t.toLowerCase() && r.holder === h.toLowerCase())?.value ?? '0';
      // a: what balanceOf could not say is 0 (a failed call is no balance); b: what its events gave
      expect([of(token, node.accounts[1]!), of(token, node.accounts[2]!), of(plain, node.accounts[3]!)]).toEqual(['0', '5', '1000']);
      expect([of(operand, node.accounts[1]!), of(operand, node.accounts[2]!)]).toEqual(['0', '3']);
      expect(of(token, node.accounts[4]!)).toBe((10n * maxUint256).toString());
      const [supply] = await fresh.db.query<{ held: string }>('SELECT held_supply::text AS held FROM tokens WHERE chain_id = $1 AND address = decode($2, \'hex\')', [DEVNET_CHAIN_ID, token.slice(2).toLowerCase()]);
      expect(BigInt(supply!.held)).toBe(60n * maxUint256 + 5n);
    } finally {
      await fresh.drop();
    }
  }, 120_000);
});
