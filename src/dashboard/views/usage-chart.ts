import type { UsageDay } from '../../accounts/manager.js';
import { type Html, html } from '../html.js';
import { count, shortDate } from './format.js';

/** The chart's series: what a customer pays attention to, each from one or more usage kinds. */
export const SERIES = [
  { id: 'template', label: 'Template renders', kinds: ['template'] },
  { id: 'screenshot', label: 'Screenshots', kinds: ['screenshot'] },
  { id: 'cache', label: 'Cache hits', kinds: ['cache_hit', 'not_modified'] },
  { id: 'error', label: 'Errors', kinds: ['error', 'rate_limited'] },
] as const;

export type SeriesId = (typeof SERIES)[number]['id'];

/** Per-series counts of one day. */
export function seriesOf(day: UsageDay): Record<SeriesId, number> {
  const out = {} as Record<SeriesId, number>;
  for (const s of SERIES) out[s.id] = s.kinds.reduce((n, k) => n + day.counts[k], 0);
  return out;
}

/** The smallest 1-2-5 step that covers `max` in four grid lines. */
function niceStep(max: number): number {
  if (max <= 4) return 1;
  const raw = max / 4;
  const pow = 10 ** Math.floor(Math.log10(raw));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * pow >= raw) return m * pow;
  return 10 * pow;
}

const W = 760;
const H = 260;
const PAD = { top: 12, right: 8, bottom: 28, left: 44 };

/**
 * Requests per day as stacked bars, drawn on the server: an SVG that needs no script, scales
 * with its container, and gives each day a <title> tooltip. A data table follows for screen
 * readers and for anyone who wants the numbers.
 */
export function usageChart(days: readonly UsageDay[]): Html {
  const rows = days.map((d) => ({ day: d.day, s: seriesOf(d) }));
  const totals = rows.map((r) => SERIES.reduce((n, s) => n + r.s[s.id], 0));
  const step = niceStep(Math.max(0, ...totals));
  const top = step * 4;
  const plotW = W - PAD.left - PAD.right;
  const plotH = H - PAD.top - PAD.bottom;
  const slot = plotW / Math.max(1, rows.length);
  const barW = Math.max(2, slot * 0.64);
  const y = (v: number) => PAD.top + plotH - (v / top) * plotH;

  const grid = [0, 1, 2, 3, 4].map((i) => {
    const v = i * step;
    return html`<g class="tick"><line x1="${PAD.left}" x2="${W - PAD.right}" y1="${y(v)}" y2="${y(v)}"/><text x="${PAD.left - 8}" y="${y(v) + 4}" text-anchor="end">${shortCount(v)}</text></g>`;
  });

  const bars = rows.map((r, i) => {
    const x = PAD.left + i * slot + (slot - barW) / 2;
    let base = 0;
    const segments = SERIES.map((s) => {
      const v = r.s[s.id];
      if (v === 0) return '';
      const y0 = y(base);
      base += v;
      const y1 = y(base);
      return html`<rect class="bar-${s.id}" x="${x.toFixed(1)}" y="${y1.toFixed(1)}" width="${barW.toFixed(1)}" height="${Math.max(1, y0 - y1).toFixed(1)}" rx="1.5"/>`;
    });
    const label = `${shortDate(Date.parse(r.day))}: ${SERIES.map((s) => `${count(r.s[s.id])} ${s.label.toLowerCase()}`).join(', ')}`;
    const hit = html`<rect class="bar-hit" x="${(PAD.left + i * slot).toFixed(1)}" y="${PAD.top}" width="${slot.toFixed(1)}" height="${plotH}"/>`;
    const tick =
      i % 5 === (rows.length - 1) % 5
        ? html`<text class="day" x="${(x + barW / 2).toFixed(1)}" y="${H - 8}" text-anchor="middle">${shortDate(Date.parse(r.day)).replace(/, \d{4}$/, '')}</text>`
        : '';
    return html`<g class="day-group"><title>${label}</title>${hit}${segments}${tick}</g>`;
  });

  const empty = totals.every((t) => t === 0)
    ? html`<text class="empty" x="${PAD.left + plotW / 2}" y="${PAD.top + plotH / 2}" text-anchor="middle">No requests in the last 30 days yet</text>`
    : '';

  return html`<figure class="chart">
  <svg viewBox="0 0 ${W} ${H}" role="img" aria-labelledby="chart-title" preserveAspectRatio="xMidYMid meet">
    <title id="chart-title">Requests per day over the last ${rows.length} days, by kind</title>
    ${grid}${bars}${empty}
  </svg>
  <figcaption class="legend">
    ${SERIES.map((s) => html`<span class="legend-item"><span class="swatch bar-${s.id}" aria-hidden="true"></span>${s.label}</span>`)}
  </figcaption>
</figure>
<details class="data-table">
  <summary>Show the numbers</summary>
  <div class="table-wrap">
  <table>
    <caption class="visually-hidden">Requests per UTC day</caption>
    <thead><tr><th scope="col">Day (UTC)</th>${SERIES.map((s) => html`<th scope="col" class="num">${s.label}</th>`)}</tr></thead>
    <tbody>
      ${[...rows].reverse().map((r) => html`<tr><th scope="row">${shortDate(Date.parse(r.day))}</th>${SERIES.map((s) => html`<td class="num">${count(r.s[s.id])}</td>`)}</tr>`)}
    </tbody>
  </table>
  </div>
</details>`;
}

function shortCount(n: number): string {
  if (n >= 1_000_000) return `${+(n / 1_000_000).toFixed(1)}M`;
  if (n >= 1000) return `${+(n / 1000).toFixed(1)}k`;
  return String(n);
}
