import type { UnfurlPlatformView, UnfurlReport, UnfurlSeverity } from '../../client/unfurl.js';
import { printable } from '../printable.js';

const MARK: Record<UnfurlSeverity, string> = { error: '✗', warning: '!', info: 'i' };
const COLOUR: Record<UnfurlSeverity, string> = { error: '31', warning: '33', info: '36' };

interface Style {
  paint(sev: UnfurlSeverity, s: string): string;
  bold(s: string): string;
}

/**
 * The report as a person reads it in a terminal or a CI log: the page, then each network's card
 * (what it shows) and its problems, then each fix once. Colour only on a terminal. Every value
 * the page supplied goes through `printable`, so a title cannot move the cursor or clear the screen.
 */
export function reportText(r: UnfurlReport, tty: boolean): string {
  const style: Style = {
    paint: (sev, s) => (tty ? `\x1b[${COLOUR[sev]}m${s}\x1b[0m` : s),
    bold: (s) => (tty ? `\x1b[1m${s}\x1b[0m` : s),
  };
  const hops = r.page.redirects.length;
  const answer = r.page.status === null ? 'no answer' : `HTTP ${r.page.status}`;
  const via = hops > 0 ? ` after ${plural(hops, 'redirect')} to ${printable(r.page.finalUrl ?? '')}` : '';
  const out = [style.bold(printable(r.url)), `  ${answer}${via}`, ''];
  for (const v of r.platforms) out.push(...platformLines(v, style));
  out.push(...fixLines(r, style));
  const { errors, warnings, infos } = r.summary;
  out.push('', `${plural(errors, 'error')}, ${plural(warnings, 'warning')}, ${plural(infos, 'note')}`);
  return `${out.join('\n')}\n`;
}

function platformLines(v: UnfurlPlatformView, style: Style): string[] {
  const card = v.card === 'none' ? 'no card' : v.card === 'large' ? 'large image' : 'summary (thumbnail)';
  const out = [`${style.bold(v.name.padEnd(9))} ${card}${v.cardName ? ` · ${v.cardName}` : ''}`];
  if (v.title) out.push(`  title        ${printable(v.title)}`);
  if (v.description) out.push(`  description  ${printable(v.description)}`);
  if (v.image) {
    const size = v.image.width && v.image.height ? `${v.image.width}×${v.image.height}` : 'size unknown';
    out.push(`  image        ${size} in ${v.image.aspect}${v.image.cropped ? ' (cropped)' : ''}`);
  }
  for (const p of v.problems) {
    out.push(
      `  ${style.paint(p.severity, `${MARK[p.severity]} ${p.severity.padEnd(7)}`)} ${printable(p.message)}`,
    );
  }
  return out;
}

function fixLines(r: UnfurlReport, style: Style): string[] {
  const out: string[] = [];
  for (const p of r.problems) {
    if (p.fix === null) continue;
    const who = p.platforms.length === r.platforms.length ? 'every network' : p.platforms.join(', ');
    out.push(`  ${style.paint(p.severity, MARK[p.severity])} ${p.code} (${who})`);
    for (const line of p.fix.split('\n')) out.push(`      ${printable(line)}`);
  }
  return out.length === 0 ? [] : ['', style.bold('Fixes'), ...out];
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** True when the report has a problem at `level` or above. */
export function failsAt(r: UnfurlReport, level: 'error' | 'warning' | 'info'): boolean {
  const { errors, warnings, infos } = r.summary;
  if (level === 'error') return errors > 0;
  if (level === 'warning') return errors + warnings > 0;
  return errors + warnings + infos > 0;
}
