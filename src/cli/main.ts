#!/usr/bin/env node
import { buildProgram } from './program.js';
import { describeError, errorTrace } from './errors.js';

const program = buildProgram();
program.parseAsync(process.argv).catch((error: unknown) => {
  process.stderr.write(`explorer: ${describeError(error)}\n`);
  if (program.opts<{ verbose?: boolean }>().verbose) process.stderr.write(`${errorTrace(error)}\n`);
  process.exit(1);
});
