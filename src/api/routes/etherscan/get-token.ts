import { findToken } from '../../../db/queries/holders.js';
import { EtherscanError, ok, TEXT } from './envelope.js';
import { addressParam } from './params.js';
import type { EtherscanAction } from './action.js';

/** The hosted explorer's text for a contract it knows no token at. */
export const TOKEN_NOT_FOUND = 'Contract address not found';

/**
 * module=token&action=getToken: the hosted explorer's token call, its fields as it names them
 * (`type` hyphenated, decimals and supply as decimal strings, "" when unknown). `totalSupply` is
 * the supply the v2 token object serves; `cataloged` says whether the token's metadata was read.
 */
export const getToken: EtherscanAction = {
  module: 'token',
  action: 'getToken',
  summary: "a token's name, symbol, decimals, standard and supply, as the hosted explorer's own call answers them",
  parameters: { contractaddress: 'the token' },
  async run({ db, chainId, query }) {
    const address = addressParam(query, 'contractaddress', TEXT.contractAddress);
    const token = await findToken(db, chainId, address);
    if (!token) throw new EtherscanError(TOKEN_NOT_FOUND);
    return ok({
      type: token.type,
      name: token.name,
      symbol: token.symbol,
      totalSupply: token.totalSupply?.toString() ?? '',
      decimals: token.decimals?.toString() ?? '',
      contractAddress: address,
      cataloged: token.name !== null || token.symbol !== null || token.decimals !== null,
    });
  },
};
