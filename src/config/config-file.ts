import { readFileSync } from 'node:fs';
import { ConfigError, problem } from './setting.js';
import { ConfigFileSchema } from './settings.js';

/** The config file's content, checked against the schema every setting contributes to. */
export type ConfigFile = Record<string, unknown> & { chains?: unknown[] };

/** Reads and checks the JSON config file: a typo'd key or a wrong type names the key. */
export function readConfigFile(path: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ConfigError(`config file ${path}: ${code === 'ENOENT' ? 'no such file' : (error as Error).message}`);
  }
  let content: unknown;
  try {
    content = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`config file ${path} is not valid JSON: ${(error as Error).message}`);
  }
  if (typeof content !== 'object' || content === null || Array.isArray(content)) {
    throw new ConfigError(`config file ${path}: expected a JSON object of settings`);
  }
  // secrets may sit in the file, so values are never echoed back
  const why = problem(ConfigFileSchema, content, { secret: true });
  if (why !== null) throw new ConfigError(`config file ${path}: ${why}`);
  return content as ConfigFile;
}
