import cliProgress from 'cli-progress';
import type { IndexBatch } from './transform.js';
import type { Logger } from './reorg.js';

/**
 * On a terminal, a bar per chain while backfilling (blocks/s, events/s, ETA); elsewhere a
 * structured log line about every 10 s and when the head is reached.
 */
export function progressReporter(chainId: number, logger: Logger, tty = process.stderr.isTTY) {
  const started = Date.now();
  let blocks = 0;
  let transfers = 0;
  let lastLog = 0;
  let caughtUp = false;
  let bar: cliProgress.SingleBar | null = null;
  return ({ batch, head }: { batch: IndexBatch; head: bigint; ms: number }) => {
    blocks += batch.blocks.length;
    transfers += batch.transfers;
    const seconds = Math.max((Date.now() - started) / 1000, 0.001);
    const stats = { blocksPerS: Math.round(blocks / seconds), eventsPerS: Math.round(transfers / seconds) };
    const behind = Number(head - batch.to);
    if (tty) {
      if (!bar && behind > 100) {
        bar = new cliProgress.SingleBar(
          { format: `chain ${chainId} |{bar}| {value}/{total} blocks | {blocksPerS} blocks/s | {eventsPerS} events/s | ETA {eta_formatted}`, hideCursor: true },
          cliProgress.Presets.shades_classic,
        );
        bar.start(Number(head), Number(batch.to), stats);
      }
      bar?.setTotal(Number(head));
      bar?.update(Number(batch.to), stats);
      if (bar && behind === 0) {
        bar.stop();
        bar = null;
      }
      return;
    }
    const reachedHead = behind === 0 && !caughtUp;
    caughtUp = behind === 0;
    if (reachedHead || Date.now() - lastLog > 10_000) {
      lastLog = Date.now();
      logger.info({ chainId, indexed: batch.to.toString(), head: head.toString(), behind, ...stats }, 'indexing');
    }
  };
}
