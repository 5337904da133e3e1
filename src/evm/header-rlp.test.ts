/**
 * The header encoding against real headers (../shared/fixtures/real, whose hashes were checked
 * there): Frontier-era, London, Shanghai, Cancun on Ethereum, and Arbitrum's, each hashing to
 * its own hash, and a header with one field changed not.
 */
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../test/support/replay-rpc.js';
import type { RpcBlock } from '../rpc/types.js';
import { headerMatchesHash, headerRlp, sealedHeaderRlp } from './header-rlp.js';
import { BlockSealError, blockProducerOf, cliqueSigner } from './block-producer.js';

const HEADERS: Array<[string, number?]> = [
  ['ethereum-etl-block-508110/web3_response.eth_getBlockByNumber_0x7c0ce_false.json'],
  ['ethereum-mainnet/block-16000000.eth_getBlockByNumber.full.json'],
  ['ethereum-mainnet/blocks-17000000-17000001.eth_getBlockByHash.full.batch.json', 0],
  ['ethereum-mainnet/blocks-17000000-17000001.eth_getBlockByHash.full.batch.json', 1],
  ['ethereum-mainnet/block-18000000.eth_getBlockByNumber.full.json'],
  ['ethereum-mainnet/block-19665755.eth_getBlockByNumber.hashes.json'],
  ['ethereum-mainnet/block-19900000.eth_getBlockByNumber.full.json'],
  ['arbitrum-sepolia/block-0.eth_getBlockByNumber.full.json'],
  ['arbitrum-sepolia/block-185232421.eth_getBlockByNumber.full.json'],
];

const header = (file: string, index?: number): RpcBlock => {
  const result = fixtureResult<RpcBlock | RpcBlock[]>(file, index ?? 0);
  return Array.isArray(result) ? result[0]! : result;
};

describe('headerMatchesHash', () => {
  it.each(HEADERS)('%s (%s): the fields the node sent hash to its hash', (file, index) => {
    expect(headerMatchesHash(header(file, index))).toBe(true);
  });

  it('a field changed, dropped or a fork field missing: no match', () => {
    const block = header('ethereum-mainnet/block-19900000.eth_getBlockByNumber.full.json');
    expect(headerMatchesHash({ ...block, gasUsed: `0x${(BigInt(block.gasUsed) + 1n).toString(16)}` })).toBe(false);
    // the fork fields end at the first one absent: Cancun's blob fields left out are a different header
    expect(headerMatchesHash({ ...block, blobGasUsed: undefined })).toBe(false);
    expect(() => headerMatchesHash({ ...block, stateRoot: undefined })).toThrow(/has no stateRoot/);
  });
});

describe('sealedHeaderRlp', () => {
  it('the fields to nonce and the base fee, none of a later fork: what geth Clique and Bor sign', () => {
    const cancun = header('ethereum-mainnet/block-19900000.eth_getBlockByNumber.full.json');
    const extra = '0x' + '00'.repeat(32);
    const withoutLaterForks = { ...cancun, withdrawalsRoot: undefined, blobGasUsed: undefined, excessBlobGas: undefined, parentBeaconBlockRoot: undefined, extraData: extra };
    expect(sealedHeaderRlp(cancun, extra)).toBe(headerRlp(withoutLaterForks));
    // before London: no base fee, the fifteen fields alone
    const frontier = header('ethereum-etl-block-508110/web3_response.eth_getBlockByNumber_0x7c0ce_false.json');
    expect(sealedHeaderRlp(frontier, extra)).toBe(headerRlp({ ...frontier, extraData: extra }));
  });
});

describe('the block producer', () => {
  it('miner: the header field; clique on a block without a seal: refused by name, never a wrong address', () => {
    const block = header('ethereum-mainnet/block-18000000.eth_getBlockByNumber.full.json');
    expect(blockProducerOf(block, 'miner')).toBe(String(block.miner).toLowerCase());
    expect(() => cliqueSigner(block)).toThrow(BlockSealError);
    expect(() => cliqueSigner(block)).toThrow(/block 18000000 has no Clique seal: its extraData is \d+ bytes, under 97/);
    // 97 bytes of extraData whose header does not hash to the block's hash: not checked, refused
    const padded = { ...block, extraData: `0x${'11'.repeat(97)}` };
    expect(() => cliqueSigner(padded)).toThrow(/^block 18000000: the header fields the node sent do not hash to the block's hash/);
    // a field the header needs, missing: the same kind of error, the block in decimal
    expect(() => cliqueSigner({ ...padded, mixHash: undefined })).toThrow(BlockSealError);
    expect(() => cliqueSigner({ ...padded, mixHash: undefined })).toThrow(/^block 18000000 has no mixHash the header can be encoded with, so its seal cannot be checked$/);
    // as the pipeline meets it: with what to do
    expect(() => blockProducerOf(block, 'clique')).toThrow(/; blockProducer clique needs every block after genesis sealed \(a chain that is not Clique needs miner\)$/);
  });
});
