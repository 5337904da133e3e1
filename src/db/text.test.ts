import { describe, expect, it } from 'vitest';
import { ONE_LINE_NAME, oneLine } from './text.js';

describe('one-line names', () => {
  const oneLineName = new RegExp(ONE_LINE_NAME, 'u');
  it('refuses control characters and blank names, takes any other text', () => {
    for (const bad of ['evil\n9999\texp_FAKE', 'a\tb', 'a\rb', 'a\u0000b', 'a\u007fb', '   ', '']) expect(oneLineName.test(bad), JSON.stringify(bad)).toBe(false);
    for (const good of ['airdrop backend', 'Ünïcode — name', ' padded ', '東京']) expect(oneLineName.test(good), good).toBe(true);
  });
  it('prints a name stored before on one line: control characters as \\u escapes', () => {
    expect(oneLine('evil\n9999\texp')).toBe('evil\\u000a9999\\u0009exp');
    expect(oneLine('plain')).toBe('plain');
  });
});
