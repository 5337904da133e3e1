import type { EtherscanAction } from './action.js';
import { minedBlocks } from './mined-blocks.js';
import { tokenBalance } from './token-balance.js';
import { tokenBalanceHistory } from './token-balance-history.js';
import { addressTokenBalance } from './address-token-balance.js';
import { addressNftBalance } from './address-nft-balance.js';
import { tokenHolderList } from './token-holder-list.js';
import { tokenHolderCount } from './token-holder-count.js';
import { tokenInfo } from './token-info.js';
import { tokenSupply } from './token-supply.js';
import { blockReward } from './block-reward.js';
import { blockByTime } from './block-by-time.js';
import { getTokenHolders } from './get-token-holders.js';
import { getToken } from './get-token.js';

/** Every action we answer: one file each, registered here and nowhere else. */
export const ACTIONS: readonly EtherscanAction[] = [
  minedBlocks,
  tokenBalance,
  tokenBalanceHistory,
  addressTokenBalance,
  addressNftBalance,
  tokenHolderList,
  tokenHolderCount,
  tokenInfo,
  getTokenHolders,
  getToken,
  tokenSupply,
  blockReward,
  blockByTime,
];

/**
 * That API's other actions, by module, with why our data cannot answer them. They get its
 * "invalid action" answer, as an action it does not know would; README lists them.
 */
export const UNSUPPORTED: Readonly<Record<string, { reason: string; actions: readonly string[] }>> = {
  account: {
    reason: 'native balances, transactions, transfers and bridge data are not indexed',
    actions: [
      'balance', 'balancemulti', 'balancehistory', 'txlist', 'txlistinternal', 'tokentx', 'tokennfttx', 'token1155tx',
      'addresstokennftinventory', 'txsBeaconWithdrawal', 'getdeposittxs', 'getwithdrawaltxs',
      'fundedby', 'txnbridge',
    ],
  },
  token: { reason: 'its result fields are not in the published documentation we could read; tokenholderlist gives the same holders, richest first', actions: ['topholders'] },
  stats: {
    reason: 'no native supply, prices, node or daily statistics are kept',
    actions: [
      'ethsupply', 'ethsupply2', 'ethprice', 'chainsize', 'nodecount', 'tokensupplyhistory', 'dailytxnfee', 'dailynewaddress',
      'dailynetutilization', 'dailyavghashrate', 'dailytx', 'dailyavgnetdifficulty', 'ethdailymarketcap', 'ethdailyprice',
    ],
  },
  block: {
    reason: 'no transactions per block or daily statistics are kept, and the API never asks a node about the future',
    actions: ['getblockcountdown', 'getblocktxnscount', 'dailyavgblocksize', 'dailyblkcount', 'dailyblockrewards', 'dailyavgblocktime', 'dailyuncleblkcount'],
  },
  contract: {
    reason: 'no contract sources or verification',
    actions: ['getabi', 'getsourcecode', 'getcontractcreation', 'verifysourcecode', 'checkverifystatus', 'verifyproxycontract', 'checkproxyverification'],
  },
  transaction: { reason: 'transactions are not indexed', actions: ['getstatus', 'gettxreceiptstatus'] },
  logs: { reason: 'logs are not indexed', actions: ['getLogs'] },
  proxy: {
    reason: 'the API never calls a node: ask your node',
    actions: [
      'eth_blockNumber', 'eth_getBlockByNumber', 'eth_getUncleByBlockNumberAndIndex', 'eth_getBlockTransactionCountByNumber',
      'eth_getTransactionByHash', 'eth_getTransactionByBlockNumberAndIndex', 'eth_getTransactionCount', 'eth_sendRawTransaction',
      'eth_getTransactionReceipt', 'eth_call', 'eth_getCode', 'eth_getStorageAt', 'eth_gasPrice', 'eth_estimateGas',
    ],
  },
  gastracker: { reason: 'no gas price statistics are kept', actions: ['gasestimate', 'gasoracle', 'dailyavggaslimit', 'dailygasused', 'dailyavggasprice'] },
};

/** module → action → definition; names in lower case, as the route looks them up. Maps, not object literals: a module named "constructor" must not find Object's. */
const BY_NAME = new Map<string, Map<string, EtherscanAction>>();
for (const a of ACTIONS) {
  const module = BY_NAME.get(a.module) ?? new Map<string, EtherscanAction>();
  module.set(a.action.toLowerCase(), a);
  BY_NAME.set(a.module, module);
}

export type Lookup = { found: EtherscanAction } | { unknown: 'module' | 'action' };

/** The action a module/action pair names, in any letter case (as that API's names are read). */
export function findAction(module: unknown, action: unknown): Lookup {
  if (typeof module !== 'string') return { unknown: 'module' };
  const name = module.toLowerCase();
  const actions = BY_NAME.get(name);
  if (!actions && !Object.hasOwn(UNSUPPORTED, name)) return { unknown: 'module' };
  const found = typeof action === 'string' ? actions?.get(action.toLowerCase()) : undefined;
  return found ? { found } : { unknown: 'action' };
}
