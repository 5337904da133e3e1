/**
 * No secret of a configured URL reaches a log line, whatever carried it there: an error's cause
 * quoting the URL it fetched (viem does), a node echoing its key, a driver's message (L2 review:
 * a node's quota error with the key was logged word for word).
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/cli/runtime.js';
import { loadConfig } from '../../src/config/config.js';

const RPC = 'https://ops:Rpc-Pa55word@node.example/v3/0f1e2d3c4b5a69788796a5b4c3d2e1f0?apikey=QueryKey77';
const PARENT = 'https://parent.example/v2/AlchemyStyleKey123456';
const DATABASE = 'postgres://explorer:Db-Secr3t@db.example:5432/explorer';
const REDIS = 'redis://:Redis-Secr3t@cache.example:6379';

function capture() {
  const lines: string[] = [];
  const stream = new Writable({ write: (chunk: Buffer, _encoding, done) => (lines.push(chunk.toString('utf8')), done()) });
  return { lines, stream };
}

describe('log lines', () => {
  it('mask every secret of the configured URLs, as given, URL-encoded and as a Basic header', () => {
    const config = loadConfig({}, {
      EXPLORER_CHAINS: `1=${RPC}`,
      DATABASE_URL: DATABASE,
      REDIS_URL: REDIS,
    });
    config.chains[0]!.arbitrum = { rollup: '0x0000000000000000000000000000000000000001', parentRpcUrls: [PARENT], parentStartBlock: 0, messagesToBlocksShift: 0 } as never;
    const { lines, stream } = capture();
    const logger = createLogger('info', config, stream);
    const cause = new Error(`RPC Request failed.\n\nURL: ${RPC.replace('ops:Rpc-Pa55word@', '')}`);
    logger.error({ err: new Error('eth_call: quota exceeded', { cause }) }, 'indexing step failed');
    logger.warn({ reason: `quota exceeded for key 0f1e2d3c4b5a69788796a5b4c3d2e1f0 (${encodeURIComponent('Rpc-Pa55word')}, Basic ${btoa('ops:Rpc-Pa55word')})` }, 'retrying');
    logger.warn({ err: `password authentication failed: "Db-Secr3t"; redis Redis-Secr3t; parent ${PARENT}` }, 'database');
    const written = lines.join('');
    expect(written).toContain('indexing step failed');
    expect(written).toContain('quota exceeded for key ***');
    // the words of the URLs stay: the service, the database's name, the path's version
    expect(written).toContain('"service":"explorer"');
    expect(written).toContain('/v3/***');
    for (const secret of ['Rpc-Pa55word', '0f1e2d3c4b5a69788796a5b4c3d2e1f0', 'QueryKey77', btoa('ops:Rpc-Pa55word'), 'Db-Secr3t', 'Redis-Secr3t', 'AlchemyStyleKey123456']) {
      expect(written).not.toContain(secret);
    }
  });
});
