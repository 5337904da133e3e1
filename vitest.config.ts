import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // Each file gets its own process: PGlite instances and anvil nodes stay isolated.
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2,
    reporters: ['default'],
  },
});
