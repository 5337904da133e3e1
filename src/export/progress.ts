import { SingleBar } from 'cli-progress';

export interface Progress {
  update(count: number): void;
  stop(): void;
}

const silent: Progress = { update: () => undefined, stop: () => undefined };

/**
 * A live count with rate (and bar and ETA when the total is known) on a terminal; nothing
 * otherwise, so logs and pipes stay clean. `start` is what an earlier run already wrote.
 */
export function createProgress(options: {
  enabled: boolean;
  stream: NodeJS.WriteStream;
  noun: string;
  total: number | null;
  start: number;
}): Progress {
  if (!options.enabled || !options.stream.isTTY) return silent;
  const withTotal = options.total !== null && options.total > 0;
  const bar = new SingleBar({
    stream: options.stream,
    format: withTotal
      ? `{bar} {percentage}% | {value}/{total} ${options.noun} | {rate}/s | ETA {eta_formatted}`
      : `{value} ${options.noun} | {rate}/s | {duration_formatted}`,
    hideCursor: true,
    etaBuffer: 50,
    fps: 5,
  });
  const began = Date.now();
  // cli-progress has no rate token: ours counts this run's records only
  const rate = (count: number) => {
    const seconds = (Date.now() - began) / 1000;
    return seconds > 0 ? Math.round((count - options.start) / seconds) : 0;
  };
  bar.start(withTotal ? options.total! : 0, options.start, { rate: 0 });
  return {
    update: (count) => {
      if (withTotal && count > options.total!) bar.setTotal(count);
      bar.update(count, { rate: rate(count) });
    },
    stop: () => bar.stop(),
  };
}
