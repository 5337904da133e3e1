import { findToken } from '../../../db/queries/holders.js';
import { heldSupply } from '../../../db/queries/token-supply.js';
import type { TokenType } from '../../../db/rows.js';
import { noRecords, ok, EMPTY, TEXT } from './envelope.js';
import { addressParam } from './params.js';
import type { EtherscanAction } from './action.js';

/** That API's price for a token it has none for; we hold no prices. */
export const NO_PRICE = '0.0000000000';

/** That API spells the standards without the hyphen. */
const TYPE_NAMES: Record<TokenType, string> = { 'ERC-20': 'ERC20', 'ERC-721': 'ERC721', 'ERC-1155': 'ERC1155' };

/** The project fields that API fills from what token owners submit to it: none here. */
const PROFILE_FIELDS = [
  'description', 'website', 'email', 'blog', 'reddit', 'slack', 'facebook', 'twitter',
  'bitcointalk', 'github', 'telegram', 'wechat', 'linkedin', 'discord', 'whitepaper',
] as const;

/**
 * module=token&action=tokeninfo: a one-element list with the token's metadata, its supply as
 * the holders' balances add up (as tokensupply) and empty project fields.
 */
export const tokenInfo: EtherscanAction = {
  module: 'token',
  action: 'tokeninfo',
  summary: "a token's name, symbol, decimals, standard and supply",
  parameters: { contractaddress: 'the token' },
  async run({ db, chainId, query }) {
    const address = addressParam(query, 'contractaddress', TEXT.contractAddress);
    const token = await findToken(db, chainId, address);
    if (!token) return noRecords(EMPTY.records);
    return ok([
      {
        contractAddress: address,
        tokenName: token.name ?? '',
        symbol: token.symbol ?? '',
        divisor: String(token.decimals ?? 0),
        tokenType: TYPE_NAMES[token.type],
        totalSupply: (await heldSupply(db, chainId, address)).toString(),
        blueCheckmark: 'false',
        ...Object.fromEntries(PROFILE_FIELDS.map((f) => [f, ''])),
        tokenPriceUSD: NO_PRICE,
      },
    ]);
  },
};
