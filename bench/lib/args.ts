import { parseArgs } from 'node:util';

type Spec = Record<string, { type: 'string' | 'boolean'; default?: string | boolean }>;

/**
 * Flags of a bench script; `--tiny` picks the tiny defaults, and any flag given explicitly wins
 * over both sets of defaults.
 */
export function readFlags<D extends Record<string, number>>(
  full: D,
  tiny: D,
  extra: Spec = {},
): { sizes: D; tiny: boolean; options: Record<string, string | boolean | undefined> } {
  const spec: Spec = { tiny: { type: 'boolean', default: false }, ...extra };
  for (const name of Object.keys(full)) spec[kebab(name)] = { type: 'string' };
  const { values } = parseArgs({ options: spec, strict: true, allowPositionals: false });
  const isTiny = values.tiny === true;
  const sizes = { ...(isTiny ? tiny : full) } as Record<string, number>;
  for (const name of Object.keys(full)) {
    const given = values[kebab(name)];
    if (typeof given === 'string') {
      const n = Number(given.replace(/_/g, ''));
      if (!Number.isFinite(n) || n < 0) throw new Error(`--${kebab(name)} expects a number, got "${given}"`);
      sizes[name] = n;
    }
  }
  return { sizes: sizes as D, tiny: isTiny, options: values as Record<string, string | boolean | undefined> };
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);
