#!/usr/bin/env node
import { ConfigError } from '../config/config.js';
import { DataDirInUseError } from '../db/data-dir-lock.js';
import { buildProgram } from './program.js';

buildProgram()
  .parseAsync(process.argv)
  .catch((error: unknown) => {
    if (error instanceof ConfigError || error instanceof DataDirInUseError) {
      process.stderr.write(`explorer: ${error.message}\n`);
    } else {
      process.stderr.write(`explorer: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    }
    process.exit(1);
  });
