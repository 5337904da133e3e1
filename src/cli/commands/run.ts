import { Command } from 'commander';
import { createServer } from 'node:net';
import { ConfigError, loadConfig, unlistedChainConfig, type ConfigFlags } from '../../config/config.js';
import type { Runtime } from '../runtime.js';
import { settingOptions } from '../setting-options.js';
import { bannerText, demoKey, type DemoInfo } from '../banner.js';
import { countActiveApiKeys } from '../../db/queries/api-keys.js';
import type { StopRequest } from './serve.js';

// The roles' modules (the API, the indexer, the database, the devnet) are imported when a role
// starts, not with the program: a usage or settings error, or --help, answers in a fraction of
// the second their loading takes (about a second).

export interface Role {
  /** starts the role; the returned function stops it */
  (runtime: Runtime): Promise<(stop: StopRequest) => Promise<void>>;
}

const apiRole: Role = async (rt) => {
  const { startApi } = await import('./serve.js');
  return startApi(rt);
};

/** How long a chain kind's start-up check waits for its other nodes (a parent chain's) before leaving them to the indexer. */
const KIND_CHECK_WAIT_MS = 15_000;

/**
 * Checks every chain's endpoint serves the chain id it was configured with before anything
 * starts, then runs the pipelines. A chain whose pipeline dies stops alone while others run
 * (indexer/run.ts); when none is left the process exits non-zero so a supervisor restarts it.
 * Transient faults, a lost writer lock included, never get that far.
 */
const indexerRole: Role = async (rt) => {
  if (rt.config.chains.length === 0) {
    rt.logger.warn('no --chain given: nothing to index');
    return async () => undefined;
  }
  const [{ verifyChainId }, { chainRpcClient, otherNodesRpc }, { startIndexers }, { checkChainKindsAtStart }, { ensureChain }, { checkBlockProducer }] = await Promise.all([
    import('../../indexer/chain-identity.js'),
    import('../../indexer/chain-rpc.js'),
    import('../../indexer/run.js'),
    import('../../chains/index.js'),
    import('../../db/queries/chains.js'),
    import('../../indexer/block-producer-check.js'),
  ]);
  // /metrics first: a scrape must work while a node is slow to answer the checks below
  const metricsPort = rt.config.metricsPort;
  const metrics = metricsPort === null ? null : await (await import('../../api/metrics-server.js')).startMetricsServer(rt.metrics.registry, rt.config.api.host, metricsPort);
  if (metrics) rt.logger.info({ url: `http://${rt.config.api.host}:${metricsPort}/metrics` }, 'metrics listening');
  // Only a process that indexes a chain registers it (any other command run with the
  // deployment's chain list, EXPLORER_CHAINS, would bring a removed chain back), and only once
  // its node has said it serves that chain: a start refused for a typo in a URL or a chain id
  // must not leave a chain that /health then reports as never reached.
  for (const chain of rt.config.chains) {
    const rpc = chainRpcClient(chain, rt.logger);
    try {
      // (a node that hangs is otherwise silent until the first call's timeout)
      rt.logger.info({ chainId: chain.chainId }, 'asking the RPC URLs which chain they serve');
      await verifyChainId(rpc, chain.chainId);
      await ensureChain(rt.db, chain.chainId, chain.elasticity, chain.blobSchedule ?? null);
      await checkBlockProducer(rt.db, chain, rpc, rt.logger, AbortSignal.timeout(KIND_CHECK_WAIT_MS));
      await checkChainKindsAtStart({ db: rt.db, chain, rpc, logger: rt.logger, createRpc: otherNodesRpc(chain, rt.logger) }, KIND_CHECK_WAIT_MS);
    } finally {
      rpc.close();
    }
  }
  const handle = startIndexers(rt.db, rt.config.chains, rt.logger.child({ role: 'indexer' }), { metrics: rt.metrics, writerLeaseMs: rt.config.writerLeaseMs });
  handle.done.catch((error: unknown) => {
    rt.logger.fatal({ err: error }, 'indexer stopped');
    // the log may go to a collector; an operator at the terminal reads stderr
    process.stderr.write(`explorer: indexing stopped: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
  return async () => {
    await handle.stop();
    await metrics?.close();
  };
};

/** Refuses at once a port another process listens on (the listen itself comes later, after the devnet and the migrations). */
async function ensurePortFree(host: string, port: number, flag = '--port'): Promise<void> {
  if (port === 0) return;
  const probe = createServer();
  try {
    await new Promise<void>((resolve, reject) => {
      probe.once('error', reject);
      probe.listen({ host, port, exclusive: true }, resolve);
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new ConfigError(`port ${port} on ${host} is in use by another process: stop it, or pick another with ${flag}`);
    if (code === 'EACCES') throw new ConfigError(`port ${port} on ${host}: permission denied (ports below 1024 need privileges): pick another with ${flag}`);
    throw error;
  } finally {
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  }
}

/**
 * Runs roles until SIGINT/SIGTERM, then stops them in reverse order and closes the database,
 * so an interrupted run leaves nothing half-written (each indexer batch is one transaction).
 * The API drains on SIGTERM (serve.ts); a second signal cuts that short, a third exits at once.
 */
export async function runRoles(flags: ConfigFlags, roles: Role[]): Promise<void> {
  const config = loadConfig(flags);
  // a port taken is found before the database, the devnet and the backfill, not after them
  if (roles.includes(apiRole)) await ensurePortFree(config.api.host, config.api.port);
  if (roles.includes(indexerRole) && config.metricsPort !== null) {
    if (roles.includes(apiRole) && config.metricsPort === config.api.port) throw new ConfigError(`--metrics-port ${config.metricsPort} is the API's port, which serves /metrics already: pick another, or leave it out`);
    await ensurePortFree(config.api.host, config.metricsPort, '--metrics-port');
  }
  const { openRuntime } = await import('../runtime.js');
  const rt = await openRuntime(config);
  const stops: Array<(stop: StopRequest) => Promise<void>> = [];
  const hurry = new AbortController();
  let signals = 0;
  const shutdown = async (signal: string) => {
    // the second signal cuts the API's drain short; a third ends the process where it stands
    // (a stop that hangs: nothing half-written survives it, each batch being one transaction)
    if (++signals === 3) {
      process.stderr.write(`explorer: ${signal} a third time: exiting without waiting for the stop\n`);
      process.exit(130);
    }
    if (signals === 2) hurry.abort();
    if (signals > 1) return;
    rt.logger.info({ signal }, 'stopping');
    for (const stop of stops.reverse()) await stop({ signal, hurry: hurry.signal }).catch((err: unknown) => rt.logger.error({ err }, 'stop failed'));
    await rt.close();
    rt.logger.info({ signal }, 'stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
  for (const role of roles) stops.push(await role(rt));
}

/** `serve` serves every chain the database holds: a chain list given to it limits nothing, and it says so. */
const chainsIgnoredRole: Role = async (rt) => {
  if (rt.config.chains.length > 0) {
    rt.logger.warn({ chainIds: rt.config.chains.map((c) => c.chainId) }, 'serve answers for every chain in the database: the chains configured here are for `index` and `start`');
  }
  return async () => undefined;
};

export function serveCommand(): Command {
  return settingOptions(new Command('serve').description('serve the API from the database (no indexing)'), ['server']).action(
    async (flags: ConfigFlags) => runRoles(flags, [chainsIgnoredRole, apiRole]),
  );
}

/**
 * Without any chain configured, `start` runs a local devnet with demo tokens and indexes it, with
 * the per-chain settings the flags, the environment and the file give (--start-block,
 * --reorg-window, --history-from-block…).
 */
const demoRole = (info: DemoInfo[], flags: ConfigFlags): Role => async (rt) => {
  const [{ startDemo }, { ensureChain }] = await Promise.all([import('../demo.js'), import('../../db/queries/chains.js')]);
  const demo = await startDemo(
    rt.config.dataDir,
    (chainId, rpcUrls) => unlistedChainConfig(flags, chainId, rpcUrls),
    (error) => rt.logger.warn({ err: error }, 'the demo chain\'s state was not saved this time (the last saved one stays)'),
  );
  const key = demoKey(rt.config);
  info.push({ token: demo.scenario.erc20, miner: demo.miners[0] ?? demo.scenario.deployer, key });
  rt.config.chains.push(demo.chain);
  await ensureChain(rt.db, demo.chain.chainId, demo.chain.elasticity);
  rt.config.api.staticApiKeys.push(key);
  rt.logger.info({ rpcUrl: demo.chain.rpcUrls[0], chainId: demo.chain.chainId }, 'demo devnet running');
  // the demo is its chain: without it the indexer would only retry, and say so, for ever
  void demo.died.then((output) => {
    rt.logger.fatal({ output: output.split('\n').slice(-5) }, 'the demo chain (anvil) stopped on its own');
    process.stderr.write('explorer: the demo chain (anvil) stopped on its own; `npm start` again continues it from its last saved state\n');
    process.exit(1);
  });
  return () => demo.stop();
};

const bannerRole = (info: DemoInfo[]): Role => async (rt) => {
  process.stdout.write(bannerText(rt.config, info[0] ?? null, await countActiveApiKeys(rt.db)));
  return async () => undefined;
};

export function startCommand(): Command {
  return settingOptions(
    new Command('start').description('index the configured chains and serve the API, in one process (no --chain: a local demo devnet)'),
    ['server', 'indexer'],
  ).action(async (flags: ConfigFlags) => {
      const info: DemoInfo[] = [];
      const demo = loadConfig(flags).chains.length === 0;
      // the API first: what is indexed is served (and /health answers) while a node that hangs
      // or refuses at start is waited for (L2-provider review: the port stayed closed for minutes)
      await runRoles(flags, [...(demo ? [demoRole(info, flags)] : []), apiRole, indexerRole, bannerRole(info)]);
    });
}

export function indexCommand(): Command {
  return settingOptions(new Command('index').description('index the configured chains (no API); run beside `serve` on one PostgreSQL'), [
    'indexer',
  ]).action(async (flags: ConfigFlags) => runRoles(flags, [indexerRole]));
}

export { apiRole, indexerRole };
