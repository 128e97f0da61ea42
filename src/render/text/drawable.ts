import { graphemes } from '../../lib/graphemes.js';
import { clusterDrawn } from './coverage.js';
import { splitEmoji } from './emoji.js';

/** Spaces and default-ignorable code points (joiners, variation selectors) draw no glyph at all. */
const INVISIBLE = /^[\p{Z}\p{Default_Ignorable_Code_Point}]+$/u;

/**
 * The clusters of `text` that would be drawn as missing-glyph boxes, once each, in order: not an
 * emoji image, and no single registered face draws all of the cluster (scripts without a font,
 * such as Tibetan or Cherokee, CJK Extension B, unassigned code points, or a
 * mark no font has under its letter).
 */
export function undrawableClusters(text: string): string[] {
  const found = new Set<string>();
  for (const part of splitEmoji(text)) {
    if (part.kind === 'emoji') continue;
    for (const segment of graphemes(part.text)) {
      if (!INVISIBLE.test(segment) && !clusterDrawn(segment)) found.add(segment);
    }
  }
  return [...found];
}

/** `"ༀ" U+0F00`: the cluster as sent and its code points, so a mark alone is still identifiable. */
export function describeCluster(cluster: string): string {
  const points = [...cluster].map(
    (c) => `U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}`,
  );
  return `${JSON.stringify(cluster)} ${points.join(' ')}`;
}
