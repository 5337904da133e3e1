import { readFileSync } from 'node:fs';
import { ConfigError, problem } from './setting.js';
import { ALL_SETTINGS, ConfigFileSchema } from './settings.js';

const SECRET_KEYS = new Set(ALL_SETTINGS.filter((s) => s.secret).map((s) => s.key));

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
  // a secret's value is never echoed back
  const why = problem(ConfigFileSchema, content, { secret: (pointer) => pointer.split('/').some((key) => SECRET_KEYS.has(key)) });
  if (why !== null) throw new ConfigError(`config file ${path}: ${why}`);
  return content as ConfigFile;
}
