/**
 * Reliability tests' tools, one import for the suites: a chain built on anvil from many miners
 * and bulk ERC-20 traffic (crash-chain.ts), the real CLI indexer as a child process that can be
 * killed at any moment (indexer-process.ts), where it keeps its data (crash-target.ts), and a
 * comparison of the database with what the node itself says (node-comparison.ts over
 * node-facts.ts: balanceOf, totalSupply, its blocks).
 */
export * from './node-facts.js';
export * from './crash-chain.js';
export * from './node-comparison.js';
export * from './indexer-process.js';
export * from './crash-target.js';
