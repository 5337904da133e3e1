/**
 * Local devnet for the zero-config demo and the benchmarks: anvil from node_modules, precompiled
 * contracts, a realistic demo scenario and a bulk transfer generator.
 */
import { startAnvil, type AnvilInstance, type AnvilOptions } from './anvil.js';
import { connectDevnet, type DevnetClient } from './client.js';
import { deployScenario, generateActivity, type ActivityHandle, type ActivityOptions, type DemoScenario, type ScenarioOptions } from './scenario.js';

export * from './anvil.js';
export * from './bulk.js';
export * from './client.js';
export * from './random.js';
export * from './scenario.js';
export { contracts, solcVersion, sourceHash } from './artifacts.js';

export interface DemoDevnetOptions {
  anvil?: AnvilOptions;
  scenario?: ScenarioOptions;
  /** false: deploy only, no ongoing blocks. */
  activity?: ActivityOptions | false;
}

export interface DemoDevnet {
  anvil: AnvilInstance;
  client: DevnetClient;
  scenario: DemoScenario;
  activity: ActivityHandle | undefined;
  /** Stops the activity loop, then anvil. */
  stop(): Promise<void>;
}

/** Everything the zero-config demo needs: a node, the demo contracts, and blocks coming in. */
export async function startDemoDevnet(opts: DemoDevnetOptions = {}): Promise<DemoDevnet> {
  const anvil = await startAnvil(opts.anvil);
  try {
    const client = await connectDevnet(anvil.url, { chainId: anvil.chainId });
    const scenario = await deployScenario(client, opts.scenario);
    const activity = opts.activity === false ? undefined : generateActivity(client, scenario, opts.activity);
    return {
      anvil,
      client,
      scenario,
      activity,
      stop: async () => {
        await activity?.stop().catch(() => undefined);
        await anvil.stop();
      },
    };
  } catch (err) {
    await anvil.stop();
    throw err;
  }
}
