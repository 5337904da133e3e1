import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startAnvil } from '../devnet/anvil.js';
import { connectDevnet, type DevnetClient } from '../devnet/client.js';
import { deployScenario, generateActivity, type DemoScenario } from '../devnet/scenario.js';
import { keepStateSaved, type StateSaver } from '../devnet/state-saver.js';
import type { ChainConfig } from '../config/config.js';

export const DEMO_CHAIN_ID = 31337;

export interface Demo {
  chain: ChainConfig;
  scenario: DemoScenario;
  /** the addresses blocks are mined by */
  miners: readonly string[];
  stop(): Promise<void>;
  /** Resolves if the devnet's anvil exits on its own (not through stop), with its last output. */
  died: Promise<string>;
}

const serialize = (s: DemoScenario) => JSON.stringify(s, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v), 2);
const deserialize = (text: string) =>
  JSON.parse(text, (_k, v: unknown) => (typeof v === 'string' && /^\d+n$/.test(v) ? BigInt(v.slice(0, -1)) : v)) as DemoScenario;

/** The scenario deployed by an earlier run, if the node still has its contracts. */
async function previousScenario(client: DevnetClient, file: string): Promise<DemoScenario | null> {
  if (!existsSync(file)) return null;
  const scenario = deserialize(readFileSync(file, 'utf8'));
  const code = await client.public.getCode({ address: scenario.erc20 });
  return code && code !== '0x' ? scenario : null;
}

/** The demo's WETH among the chain's wrapped native tokens, beside any configured. */
function withDemoWeth(chain: ChainConfig, weth: string): ChainConfig {
  const address = weth.toLowerCase() as `0x${string}`;
  const configured = chain.wrappedNativeTokens ?? [];
  return { ...chain, wrappedNativeTokens: configured.includes(address) ? configured : [...configured, address] };
}

/**
 * anvil writes each block's state that leaves its memory to disk and keeps it until it exits:
 * the demo's left 2.3 GB an hour there (a soak review). The indexer asks the node's state only
 * near its head, so a hundred of them are plenty.
 */
const PERSISTED_STATES = '100';

/**
 * The zero-config start: a local anvil whose state lives in the data directory (so a second
 * start continues the same chain, which the indexer then resumes; saved whole or not at all,
 * state-saver.ts), demo tokens deployed once, and a loop making transfers and blocks from
 * several miners.
 */
export async function startDemo(
  dataDir: string,
  chainSettings: (chainId: number, rpcUrls: string[]) => ChainConfig,
  onSaveError: (error: unknown) => void = () => undefined,
): Promise<Demo> {
  const dir = join(dataDir, 'devnet');
  mkdirSync(dir, { recursive: true });
  const stateFile = join(dir, 'anvil-state.json');
  const anvil = await startAnvil({
    chainId: DEMO_CHAIN_ID,
    args: [...(existsSync(stateFile) ? ['--load-state', stateFile] : []), '--max-persisted-states', PERSISTED_STATES],
  });
  let saver: StateSaver | undefined;
  try {
    const client = await connectDevnet(anvil.url, { chainId: DEMO_CHAIN_ID });
    const saving = keepStateSaved(() => client.test.dumpState(), stateFile, { onError: onSaveError });
    saver = saving;
    const scenarioFile = join(dir, 'scenario.json');
    let scenario = await previousScenario(client, scenarioFile);
    if (scenario) {
      await client.setAutoImpersonate(true);
    } else {
      scenario = await deployScenario(client, { holders: 400 });
      writeFileSync(scenarioFile, serialize(scenario));
    }
    const activity = generateActivity(client, scenario, { blocksPerSecond: 1, miners: 5, onError: () => undefined });
    let stopping = false;
    return {
      chain: withDemoWeth(chainSettings(DEMO_CHAIN_ID, [anvil.url]), scenario.weth),
      scenario,
      miners: activity.miners,
      async stop() {
        stopping = true;
        await activity.stop().catch(() => undefined);
        await saving.stop().catch(onSaveError);
        await anvil.stop();
      },
      died: anvil.exited.then(() => (stopping ? new Promise<string>(() => undefined) : anvil.output())),
    };
  } catch (error) {
    await saver?.stop().catch(() => undefined);
    await anvil.stop();
    throw error;
  }
}
