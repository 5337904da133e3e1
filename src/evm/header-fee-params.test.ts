/**
 * The EIP-1559 parameters of an OP-stack header: the extraData shapes of Holocene and Jovian as
 * the OP specs lay them out (encoded here by viem, not by the code under test), and none read
 * from the real headers of other chains (../shared/fixtures/real) or from shapes that are close.
 */
import { describe, expect, it } from 'vitest';
import { encodePacked } from 'viem';
import { fixtureResult } from '../../test/support/replay-rpc.js';
import type { RpcBlock } from '../rpc/types.js';
import { headerElasticity, headerFeeParams } from './header-fee-params.js';

const withExtra = (extraData: unknown): RpcBlock => ({ ...fixtureResult<RpcBlock>('ethereum-mainnet/block-18000000.eth_getBlockByNumber.full.json'), extraData });

describe('headerFeeParams', () => {
  it("Holocene's 9 bytes (OP Mainnet's 250 and 6) and Jovian's 17 (with its minimum base fee)", () => {
    expect(headerFeeParams(withExtra(encodePacked(['uint8', 'uint32', 'uint32'], [0, 250, 6])))).toEqual({ denominator: 250, elasticity: 6 });
    const jovian = encodePacked(['uint8', 'uint32', 'uint32', 'uint64'], [1, 4_294_967_295, 2, 2n ** 64n - 1n]);
    expect(headerFeeParams(withExtra(jovian))).toEqual({ denominator: 4_294_967_295, elasticity: 2, minBaseFee: (2n ** 64n - 1n).toString() });
    expect(headerFeeParams(withExtra(jovian.toUpperCase().replace('0X', '0x')))).toMatchObject({ elasticity: 2 });
  });

  it.each([
    'ethereum-etl-block-508110/web3_response.eth_getBlockByNumber_0x7c0ce_false.json',
    'ethereum-mainnet/block-16000000.eth_getBlockByNumber.full.json',
    'ethereum-mainnet/block-18000000.eth_getBlockByNumber.full.json',
    'ethereum-mainnet/block-19900000.eth_getBlockByNumber.full.json',
    'arbitrum-sepolia/block-0.eth_getBlockByNumber.full.json',
    'arbitrum-sepolia/block-185232421.eth_getBlockByNumber.full.json',
  ])('a real header of another chain names none: %s', (file) => {
    expect(headerFeeParams(fixtureResult<RpcBlock>(file))).toBeNull();
  });

  it('close shapes name none: the wrong version for the length, a zero, a byte more or less, no extraData', () => {
    const close = [
      encodePacked(['uint8', 'uint32', 'uint32'], [1, 250, 6]),
      encodePacked(['uint8', 'uint32', 'uint32', 'uint64'], [0, 250, 6, 1n]),
      encodePacked(['uint8', 'uint32', 'uint32'], [0, 250, 0]),
      encodePacked(['uint8', 'uint32', 'uint32'], [0, 0, 6]),
      encodePacked(['uint8', 'uint32', 'uint32', 'uint8'], [0, 250, 6, 0]),
      encodePacked(['uint8', 'uint32', 'uint24'], [0, 250, 6]),
      '0x',
      '0x00000000fa0000000g',
      undefined,
      null,
    ];
    for (const extra of close) expect(headerFeeParams(withExtra(extra)), String(extra)).toBeNull();
  });
});

describe('headerElasticity', () => {
  it("the stored parameters' elasticity; null without them (the chain's setting applies)", () => {
    expect(headerElasticity({ eip1559: { denominator: 250, elasticity: 6 } })).toBe(6);
    expect(headerElasticity({ arbitrum: { sendCount: '1' } })).toBeNull();
    expect(headerElasticity(null)).toBeNull();
  });
});
