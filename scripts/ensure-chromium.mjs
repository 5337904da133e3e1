#!/usr/bin/env node
// npm "pretest": the browser test (test/web/page.test.ts) drives Debian's Chromium through
// playwright-core, which never downloads a browser of its own. Install it where we may (root with
// apt, as in CI); elsewhere say why the test will be skipped. Never fails the run itself: under
// CI=true the test fails on a missing browser, with the reason, instead of `npm test` dying here.
import { existsSync } from 'node:fs';
import { spawnSync } from 'node:child_process';

const CHROMIUM = '/usr/bin/chromium';

function note(text) {
  console.warn(`[ensure-chromium] ${text}`);
}

function run(command, args) {
  note(`${command} ${args.join(' ')}`);
  const result = spawnSync(command, args, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  return result.status === 0;
}

function main() {
  if (existsSync(CHROMIUM)) return;
  const skip = `the browser test (test/web/page.test.ts) will ${process.env.CI ? 'fail, as CI=true requires it' : 'be skipped'}`;
  if (process.platform !== 'linux' || !existsSync('/usr/bin/apt-get')) {
    note(`${CHROMIUM} is missing and there is no apt-get here to install it: ${skip}.`);
    return;
  }
  if (process.getuid?.() !== 0) {
    note(`${CHROMIUM} is missing and installing it needs root (sudo apt-get install -y chromium): ${skip}.`);
    return;
  }
  note(`${CHROMIUM} is missing: installing Debian's chromium package for the browser test.`);
  if (!run('apt-get', ['update']) || !run('apt-get', ['install', '-y', 'chromium']) || !existsSync(CHROMIUM)) {
    note(`installing chromium failed: ${skip}.`);
  }
}

main();
