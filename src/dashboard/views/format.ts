import { type Html, html } from '../html.js';

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "Jan 15, 2026" (UTC). */
export function shortDate(ms: number): string {
  const d = new Date(ms);
  return `${MONTHS[d.getUTCMonth()]} ${d.getUTCDate()}, ${d.getUTCFullYear()}`;
}

/** "Jan 15" in the current year, "Jan 15, 2025" otherwise: compact for tables. */
export function tableDate(ms: number, now: number): string {
  const full = shortDate(ms);
  return new Date(ms).getUTCFullYear() === new Date(now).getUTCFullYear()
    ? full.replace(/, \d{4}$/, '')
    : full;
}

/** "Jan 15, 2026, 14:05 UTC". */
export function dateTime(ms: number): string {
  const d = new Date(ms);
  const hh = String(d.getUTCHours()).padStart(2, '0');
  const mm = String(d.getUTCMinutes()).padStart(2, '0');
  return `${shortDate(ms)}, ${hh}:${mm} UTC`;
}

/** "just now", "5 minutes ago", "in 3 days", … relative to `now`. */
export function relative(ms: number, now: number): string {
  const diff = ms - now;
  const abs = Math.abs(diff);
  const units: Array<[number, string]> = [
    [365 * 86_400_000, 'year'],
    [30 * 86_400_000, 'month'],
    [86_400_000, 'day'],
    [3_600_000, 'hour'],
    [60_000, 'minute'],
  ];
  if (abs < 60_000) return diff < 0 ? 'just now' : 'in under a minute';
  for (const [size, name] of units) {
    if (abs >= size) {
      const n = Math.floor(abs / size);
      const text = `${n} ${name}${n === 1 ? '' : 's'}`;
      return diff < 0 ? `${text} ago` : `in ${text}`;
    }
  }
  return 'just now';
}

/** A <time> element with the exact UTC time as its tooltip. */
export function timeTag(ms: number, text: string): Html {
  return html`<time datetime="${new Date(ms).toISOString()}" title="${dateTime(ms)}">${text}</time>`;
}

/** 12345 → "12,345". */
export function count(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

/** Duration in seconds → "60 seconds", "15 minutes", "1 hour", "1 day". */
export function seconds(s: number): string {
  const pick = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  if (s % 86_400 === 0) return pick(s / 86_400, 'day');
  if (s % 3600 === 0) return pick(s / 3600, 'hour');
  if (s % 60 === 0 && s >= 120) return pick(s / 60, 'minute');
  return pick(s, 'second');
}
