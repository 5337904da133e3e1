import { mkdir, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { summarize } from './profile-summary.js';
import { RESULTS_DIR } from './results.js';

/** Writes a profile beside the results (not committed) and returns its summary for the results file. */
export async function saveProfile(name: string, profile: object) {
  const dir = join(RESULTS_DIR, 'profiles');
  await mkdir(dir, { recursive: true });
  const file = join(dir, `${name}-${new Date().toISOString().replace(/[:.]/g, '-')}.cpuprofile`);
  await writeFile(file, JSON.stringify(profile));
  return { file: relative(join(RESULTS_DIR, '..', '..'), file), ...summarize(profile as Parameters<typeof summarize>[0], 15) };
}
