/**
 * Where a --cpu-prof profile spent its time: self time per function (and per package, for code
 * under node_modules), so a benchmark's bottleneck can be named in BENCHMARKS.md.
 *
 *   npx tsx bench/profile.ts bench/results/profiles/<file>.cpuprofile [--top 25]
 */
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { summarize, type Profile } from './lib/profile-summary.js';

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values, positionals } = parseArgs({ options: { top: { type: 'string', default: '25' } }, allowPositionals: true });
  for (const file of positionals) {
    const s = summarize(JSON.parse(await readFile(file, 'utf8')) as Profile, Number(values.top));
    console.log(`${file}: ${s.total_ms} ms sampled`);
    console.log('\nby package:');
    for (const p of s.packages) console.log(`  ${String(p.share).padStart(5)}%  ${String(p.ms).padStart(7)} ms  ${p.name}`);
    console.log('\nour files (self time):');
    for (const f of s.our_files) console.log(`  ${String(f.share).padStart(5)}%  ${String(f.ms).padStart(7)} ms  ${f.name}`);
    console.log('\nby function (self time):');
    for (const f of s.functions) console.log(`  ${String(f.share).padStart(5)}%  ${String(f.ms).padStart(7)} ms  ${f.name}`);
  }
}
