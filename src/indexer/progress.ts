import cliProgress from 'cli-progress';
import type { IndexBatch } from './transform.js';
import type { Logger } from './logger.js';

/**
 * On a terminal, a bar per chain while backfilling (blocks/s, events/s, ETA); elsewhere a
 * structured log line about every 10 s and when the head is reached, its rates over the blocks
 * since the line before, from the start of the first batch after it and of the first after a
 * pause of over a minute (an outage, a stalled node): averaged since the process started, the
 * line after an outage read 0 blocks/s (outside review, 2026-11-27).
 */
/** A gap between two batches longer than this is a pause, left out of the rates. */
const PAUSE_MS = 60_000;

export function progressReporter(chainId: number, logger: Logger, tty = process.stderr.isTTY, now = Date.now) {
  const started = now();
  let blocks = 0;
  let transfers = 0;
  let lastLog = 0;
  /** the blocks and events since the last line, from the start of the first batch of them (or the first after a pause) */
  let window: { from: number; blocks: number; transfers: number } | null = null;
  let lastBatchAt = started;
  let caughtUp = false;
  let bar: cliProgress.SingleBar | null = null;
  return ({ batch, head, ms }: { batch: IndexBatch; head: bigint; ms: number }) => {
    const at = now();
    blocks += batch.blocks.length;
    transfers += batch.transfers;
    const seconds = Math.max((at - started) / 1000, 0.001);
    const stats = { blocksPerS: Math.round(blocks / seconds), eventsPerS: Math.round(transfers / seconds) };
    // (ms: the batch's own time, from taking its blocks to its commit)
    if (window === null || at - ms - lastBatchAt > PAUSE_MS) window = { from: at - ms, blocks: 0, transfers: 0 };
    lastBatchAt = at;
    window.blocks += batch.blocks.length;
    window.transfers += batch.transfers;
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
    if (reachedHead || at - lastLog > 10_000) {
      lastLog = at;
      const span = Math.max((at - window.from) / 1000, 0.001);
      const recent = { blocksPerS: Math.round(window.blocks / span), eventsPerS: Math.round(window.transfers / span) };
      window = null;
      logger.info({ chainId, indexed: batch.to.toString(), head: head.toString(), behind, ...recent }, 'indexing');
    }
  };
}
