import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import solc from 'solc';
import type { Abi, Hex } from 'viem';

export interface Artifact {
  abi: Abi;
  bytecode: Hex;
  /** runtime code (for anvil_setCode) */
  deployedBytecode: Hex;
}

const compiled = new Map<string, Record<string, Artifact>>();

/**
 * The contracts of one test-only Solidity file (test/support/…), compiled with solc-js once per
 * process. The devnet's own contracts (contracts/) are compiled ahead into src/devnet/artifacts.ts.
 */
export function compileSolidityFile(path: string): Record<string, Artifact> {
  const known = compiled.get(path);
  if (known) return known;
  const name = basename(path);
  const input = {
    language: 'Solidity',
    sources: { [name]: { content: readFileSync(path, 'utf8') } },
    settings: { optimizer: { enabled: true, runs: 200 }, evmVersion: 'cancun', outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object', 'evm.deployedBytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string }; deployedBytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length > 0) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const artifacts = Object.fromEntries(
    Object.entries(output.contracts[name]!).map(([contract, c]) => [
      contract,
      { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` as Hex, deployedBytecode: `0x${c.evm.deployedBytecode.object}` as Hex },
    ]),
  );
  compiled.set(path, artifacts);
  return artifacts;
}
