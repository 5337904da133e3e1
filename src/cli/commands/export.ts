import { Command, InvalidArgumentError, Option } from 'commander';
import { ConfigError } from '../../config/config.js';
import { createExplorerClient, ExplorerError, type ExplorerClient } from '../../sdk/index.js';
import { blocksKind, holdersKind, type ExportFormat } from '../../export/kinds.js';
import { runExport, type ExportOptions, type ExportResult } from '../../export/run.js';
import { readState } from '../../export/state.js';
import { isReaderGone } from '../../export/sink.js';
import { PAGE_SIZE, TOKEN_ID_MAX_LENGTH, TOKEN_ID_PATTERN } from '../../api/limits.js';
import { chainIdArgument } from '../arguments.js';

export interface ExportCliOptions {
  chain: string;
  /** token (holders) or miner (blocks-validated) */
  target: string;
  format?: ExportFormat;
  out?: string;
  resume?: boolean;
  url: string;
  apiKey?: string;
  key?: string;
  pageSize: number;
  /** holders only: the holders at the end of this block */
  block?: bigint;
  /** holders only: `block` was not asked for but is the server's indexed block when the export began */
  pinned?: true;
  /** holders only: the holders of this ERC-1155 token id (decimal) */
  tokenId?: string;
}

export type ExportListName = 'holders' | 'blocks-validated';

type Hooks = Pick<ExportOptions<unknown, unknown>, 'signal' | 'onPage' | 'progressStream' | 'stdout'>;

const DEFAULT_URL = 'http://127.0.0.1:4000';

function pageSize(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > PAGE_SIZE) throw new InvalidArgumentError(`a page size from 1 to ${PAGE_SIZE}`);
  return n;
}

/** JSONL unless asked otherwise or the file is named *.csv */
const formatOf = (options: ExportCliOptions): ExportFormat =>
  options.format ?? (options.out?.toLowerCase().endsWith('.csv') ? 'csv' : 'jsonl');

/** The progress total: the token's holder count, when the server can say. */
async function holdersTotal(client: ExplorerClient, options: ExportCliOptions, signal?: AbortSignal): Promise<number | null> {
  try {
    const counters = await client.tokenCounters(options.chain, options.target, { key: options.key, blockNumber: options.block, signal });
    const n = Number(counters.token_holders_count);
    return Number.isFinite(n) ? n : null;
  } catch {
    // only the progress display needs it; the list request reports any real problem
    return null;
  }
}

/**
 * The block a holders export without --block is taken at: the server's indexed block when it
 * began (its /health says), so the export is one snapshot. Walked live, a holder whose balance
 * changes while the export runs moves across the page boundary and is listed twice or not at
 * all (web/SDK review: 5 of 400 holders repeated, 6 missing, at one block a second). A resumed
 * export keeps the block it began at; one begun live before this stays live. Null when the
 * server does not say (the hosted API has no such thing): the list is then walked live.
 */
async function snapshotBlock(options: ExportCliOptions, signal: AbortSignal | undefined): Promise<{ block: bigint; pinned: true } | null> {
  const state = options.resume && options.out ? readState(options.out) : null;
  if (state) return state.pinned && state.block !== undefined ? { block: BigInt(state.block), pinned: true } : null;
  try {
    // beside the API's paths, under any prefix the base URL has (as the SDK builds its URLs)
    const url = new URL(`${options.url.replace(/\/+$/, '')}/health`);
    url.searchParams.set('chain_id', options.chain);
    const response = await fetch(url, { signal: signal ? AbortSignal.any([signal, AbortSignal.timeout(10_000)]) : AbortSignal.timeout(10_000) });
    // 503 (a chain degraded) still says the indexed block
    const body = (await response.json()) as { chains?: Array<{ chain_id?: unknown; indexed_block?: unknown }> };
    const indexed = body.chains?.find((c) => String(c.chain_id) === options.chain)?.indexed_block;
    return typeof indexed === 'number' && Number.isSafeInteger(indexed) && indexed >= 0 ? { block: BigInt(indexed), pinned: true } : null;
  } catch {
    return null;
  }
}

/** One export, as the command runs it; tests call it directly. */
export async function exportList(list: ExportListName, options: ExportCliOptions, hooks: Hooks = {}): Promise<ExportResult> {
  const apiKey = options.apiKey ?? process.env.EXPLORER_API_KEY;
  if (!apiKey) throw new ConfigError('an API key is needed: --api-key or EXPLORER_API_KEY');
  if (options.resume && !options.out) throw new ConfigError('--resume needs --out (stdout cannot be resumed)');
  const client = createExplorerClient({ baseUrl: options.url, apiKey });
  if (list === 'holders' && options.block === undefined) {
    const snapshot = await snapshotBlock(options, hooks.signal);
    const say = (text: string) => (hooks.progressStream ?? process.stderr).write(`${text}\n`);
    if (snapshot) {
      options = { ...options, block: snapshot.block, pinned: true };
      say(`holders at block ${snapshot.block}, the last block indexed when this export began (--block N for another)`);
    } else if (!options.resume) {
      say('the server does not say its indexed block: the list is walked as it is now, and a holder whose balance changes meanwhile may be listed twice or not at all (--block N takes a snapshot)');
    }
  }
  const common = {
    identity: {
      kind: list,
      chain: options.chain,
      target: options.target,
      format: formatOf(options),
      ...(options.block !== undefined ? { block: options.block.toString() } : {}),
      ...(options.pinned ? { pinned: true as const } : {}),
      ...(options.tokenId !== undefined ? { tokenId: options.tokenId } : {}),
    },
    out: options.out ?? null,
    resume: options.resume ?? false,
    itemsCount: options.pageSize,
    key: options.key,
    ...hooks,
  };
  const page = { itemsCount: options.pageSize, key: options.key };
  if (list === 'holders') {
    return runExport({
      ...common,
      kind: holdersKind,
      // the token's holder count is not one id's: no total then
      total: options.tokenId === undefined ? await holdersTotal(client, options, hooks.signal) : null,
      pages: (after, signal) =>
        client.holdersPages(options.chain, options.target, { ...page, blockNumber: options.block, tokenId: options.tokenId, after, signal }),
    });
  }
  if (options.block !== undefined || options.tokenId !== undefined) throw new ConfigError('--block and --token-id apply to holders only');
  return runExport({
    ...common,
    kind: blocksKind,
    total: null,
    pages: (after, signal) => client.validatedBlocksPages(options.chain, options.target, { ...page, after, signal }),
  });
}

function blockArgument(value: string): bigint {
  if (!/^[0-9]{1,16}$/.test(value)) throw new InvalidArgumentError('a block number');
  return BigInt(value);
}

function tokenIdArgument(value: string): string {
  if (value.length > TOKEN_ID_MAX_LENGTH || !new RegExp(TOKEN_ID_PATTERN).test(value)) throw new InvalidArgumentError('a token id in decimal');
  return value;
}

function subcommand(list: ExportListName, targetFlag: '--token' | '--address', targetHelp: string): Command {
  const command = new Command(list)
    .description(`every ${list === 'holders' ? 'holder of a token' : 'block validated by an address'}, page by page over HTTP`)
    .requiredOption('--chain <id>', 'chain id', (v) => String(chainIdArgument(v)))
    .requiredOption(`${targetFlag} <0x…>`, targetHelp)
    .addOption(new Option('--format <format>', 'csv or jsonl (default: csv for *.csv, else jsonl)').choices(['csv', 'jsonl']))
    .option('--out <file>', 'output file (default: stdout)')
    .option('--resume', 'continue an interrupted export into --out', false)
    .option('--url <url>', 'explorer API base URL', DEFAULT_URL)
    .option('--api-key <key>', 'API key (default: $EXPLORER_API_KEY)')
    .option('--key <secret>', 'secret key for restricted addresses')
    .option('--page-size <n>', `items per request, 1 to ${PAGE_SIZE}`, pageSize, PAGE_SIZE);
  if (list === 'holders') {
    command.option('--block <n>', 'the holders at the end of this block (a snapshot for airdrops, votes, audits)', blockArgument);
    command.option('--token-id <id>', 'ERC-1155: the holders of this token id only', tokenIdArgument);
  }
  return command.action(async (opts: Omit<ExportCliOptions, 'target'> & { token?: string; address?: string }) => {
      const controller = new AbortController();
      const stop = () => controller.abort(new Error('interrupted'));
      process.once('SIGINT', stop);
      process.once('SIGTERM', stop);
      const started = Date.now();
      try {
        const result = await exportList(list, { ...opts, target: (opts.token ?? opts.address)! }, { signal: controller.signal });
        const seconds = (Date.now() - started) / 1000;
        const where = opts.out ?? 'stdout';
        const count = result.items - result.resumedFrom;
        if (!result.complete) {
          process.stderr.write(`\ninterrupted after ${result.items} records in ${where}; continue with --resume\n`);
          process.exitCode = 130;
          return;
        }
        process.stderr.write(
          `${result.items} records in ${where}` +
            (result.resumedFrom > 0 ? ` (${result.resumedFrom} from before, ${count} now)` : '') +
            `, ${seconds.toFixed(1)} s, ${Math.round(count / Math.max(seconds, 0.001))}/s\n`,
        );
      } catch (error) {
        // `| head` has what it asked for: nothing to say, as any Unix filter would
        if (isReaderGone(error)) return;
        // the server's answer is the message; a stack trace would only hide it
        if (!(error instanceof ExplorerError)) throw error;
        const what = error.status === 0 ? error.message : `HTTP ${error.status}: ${error.message}${notFoundHint(list, error.status, opts.block)}`;
        process.stderr.write(`explorer export: ${what} (${error.url})\n`);
        process.exitCode = 1;
      } finally {
        process.off('SIGINT', stop);
        process.off('SIGTERM', stop);
      }
    });
}

/** What a 404 means for the list asked (the API's body says only "Not found"). */
function notFoundHint(list: ExportListName, status: number, block: bigint | undefined): string {
  if (status !== 404) return '';
  if (list === 'blocks-validated') return ' (the API serves no such chain)';
  // the API answers an unknown chain and an unknown token alike
  return block === undefined
    ? ' (the API serves no such chain, or knows no such token on it)'
    : ` (the API serves no such chain, or knows no such token on it at block ${block}: unknown, or none of its transfers indexed by then)`;
}

export function exportCommand(): Command {
  return new Command('export')
    .description('stream a whole list to a CSV or JSONL file (resumable), through the API')
    .addCommand(subcommand('holders', '--token', 'token address'))
    .addCommand(subcommand('blocks-validated', '--address', 'miner or validator address'));
}
