/**
 * Where a --cpu-prof profile spent its time: self time per function (and per package, for code
 * under node_modules), so a benchmark's bottleneck can be named in BENCHMARKS.md. (A module of
 * its own, apart from bench/profile.ts's command line: a bundled bench child that imports it
 * must not run that command.)
 */
interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
export interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export function summarize(profile: Profile, top = 25) {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const selfUs = new Map<number, number>();
  profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
  const functions = new Map<string, number>();
  const packages = new Map<string, number>();
  const files = new Map<string, number>();
  for (const [id, us] of selfUs) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const file = url.replace(/^file:\/\//, '').replace(/^.*\/work\/main\//, '');
    const fn = `${functionName || '(anonymous)'} ${file ? `${file.split('/').slice(-2).join('/')}:${lineNumber + 1}` : ''}`.trim();
    functions.set(fn, (functions.get(fn) ?? 0) + us);
    const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(file)?.[1] ?? (file.startsWith('src/') ? 'src (ours)' : file === '' ? functionName || '(native)' : file.startsWith('node:') ? 'node internals' : 'other');
    packages.set(pkg, (packages.get(pkg) ?? 0) + us);
    if (file.startsWith('src/')) files.set(file, (files.get(file) ?? 0) + us);
  }
  const rank = (m: Map<string, number>) =>
    [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, top).map(([name, us]) => ({ name, ms: Math.round(us / 1000), share: Math.round((us / total) * 1000) / 10 }));
  return { total_ms: Math.round(total / 1000), packages: rank(packages), our_files: rank(files), functions: rank(functions) };
}
