import { cumulativeShares, topShares } from './concentration.js';
import { h, s } from './dom.js';

const W = 320;
const H = 170;
const PAD = { left: 36, right: 12, top: 12, bottom: 28 };

/**
 * Holder concentration from the largest holders loaded: tiles for the top 1/10/100 share of
 * supply, and the cumulative share held by the top k holders against k on a log scale (so the
 * 1, 10 and 100 marks sit evenly apart).
 */
export function concentrationChart(values: readonly bigint[], supply: bigint | null): HTMLElement {
  const tiers = topShares(values, supply);
  const curve = cumulativeShares(values, supply);
  if (tiers.length === 0 || curve.length === 0) {
    return h('p', { className: 'muted' }, 'Concentration not available: the total supply is unknown.');
  }
  const tiles = h(
    'ul',
    { className: 'tiles', 'aria-label': 'Share of supply held by the largest holders' },
    ...tiers.map((t) =>
      h(
        'li',
        { 'data-top': t.count },
        h('span', { className: 'tile-label' }, t.count === 1 ? 'Top holder' : `Top ${t.count}`),
        h('strong', {}, `${t.hundredths / 100n}.${(t.hundredths % 100n).toString().padStart(2, '0')}%`),
      ),
    ),
  );
  return h('div', { className: 'concentration' }, tiles, plot(curve));
}

function plot(curve: readonly number[]): SVGSVGElement {
  const n = curve.length;
  const maxLog = Math.max(Math.log10(Math.max(n, 10)), 1);
  const x = (rank: number) => PAD.left + (Math.log10(rank) / maxLog) * (W - PAD.left - PAD.right);
  const y = (pct: number) => H - PAD.bottom - (pct / 100) * (H - PAD.top - PAD.bottom);
  const path = curve.map((pct, i) => `${i === 0 ? 'M' : 'L'}${x(i + 1).toFixed(1)},${y(pct).toFixed(1)}`).join(' ');
  const area = `${path} L${x(n).toFixed(1)},${y(0)} L${x(1).toFixed(1)},${y(0)} Z`;
  const last = curve[n - 1] ?? 0;
  const svg = s(
    'svg',
    {
      viewBox: `0 0 ${W} ${H}`,
      className: 'chart',
      role: 'img',
      'aria-label': `Cumulative share of supply held by the top 1 to ${n} holders, reaching ${last.toFixed(2)}%`,
    },
  );
  for (const pct of [0, 50, 100]) {
    svg.append(
      s('line', { x1: PAD.left, x2: W - PAD.right, y1: y(pct), y2: y(pct), className: 'grid' }),
      s('text', { x: PAD.left - 4, y: y(pct) + 4, 'text-anchor': 'end', className: 'axis' }, `${pct}%`),
    );
  }
  const ticks = [1, 10, 100, 1000].filter((r) => r <= Math.max(n, 10));
  ticks.forEach((rank, i) => {
    // the first and last labels sit inside the plot so the view box does not clip them
    const anchor = i === 0 ? 'start' : i === ticks.length - 1 ? 'end' : 'middle';
    svg.append(s('text', { x: x(rank), y: H - PAD.bottom + 16, 'text-anchor': anchor, className: 'axis' }, `top ${rank}`));
  });
  svg.append(s('path', { d: area, className: 'area' }), s('path', { d: path, className: 'line' }));
  for (const rank of [1, 10, 100].filter((r) => r <= n)) {
    const pct = curve[rank - 1] ?? 0;
    svg.append(s('circle', { cx: x(rank), cy: y(pct), r: 3.5, className: 'mark' }, s('title', {}, `Top ${rank}: ${pct.toFixed(2)}%`)));
  }
  return svg;
}
