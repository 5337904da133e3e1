/** The Arbitrum kind against real Arbitrum Sepolia headers (../shared/fixtures/real). */
import { describe, expect, it } from 'vitest';
import { fixtureResult } from '../../../test/support/replay-rpc.js';
import type { RpcBlock } from '../../rpc/types.js';
import { chainFieldsOf, chainFieldViews } from '../index.js';

describe('Arbitrum header fields', () => {
  it('185,232,421: the four header fields from the node, settlement unknown', () => {
    const block = fixtureResult<RpcBlock>('arbitrum-sepolia/block-185232421.eth_getBlockByNumber.full.json');
    const fields = chainFieldsOf(block);
    expect(fields).toEqual({
      arbitrum: {
        l1_block_number: 0x897f00,
        send_count: 0x1a7e4,
        send_root: '0x724ad28bff9d9f11caae988e3c78a0951dd3d01ec9e568e6f134afb27d8f413c',
        delayed_messages: 1_789_671,
      },
    });
    expect(chainFieldViews(fields)).toEqual({
      arbitrum: {
        l1_block_number: 0x897f00,
        l1_block_height: 0x897f00,
        send_count: 0x1a7e4,
        send_root: '0x724ad28bff9d9f11caae988e3c78a0951dd3d01ec9e568e6f134afb27d8f413c',
        delayed_messages: 1_789_671,
        batch_number: null,
        status: null,
        batch_data_container: null,
        commitment_transaction: { hash: null, status: null, timestamp: null },
        confirmation_transaction: { hash: null, status: null, timestamp: null },
      },
    });
  });

  it('genesis: zero Arbitrum fields', () => {
    const genesis = fixtureResult<RpcBlock>('arbitrum-sepolia/block-0.eth_getBlockByNumber.full.json');
    expect(chainFieldsOf(genesis)?.arbitrum).toMatchObject({ l1_block_number: 0, send_count: 0, delayed_messages: 1 });
  });

  it('a mainnet block has no chain fields, and its view no extra property', () => {
    const block = fixtureResult<RpcBlock>('ethereum-mainnet/block-18000000.eth_getBlockByNumber.full.json');
    expect(chainFieldsOf(block)).toBeNull();
    expect(chainFieldViews(null)).toEqual({});
  });
});
