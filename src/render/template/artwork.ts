import { createHash } from 'node:crypto';
import type { Artwork } from './types.js';

/**
 * The image `src` for caller artwork. takumi caches decoded images by `src`, so the name carries
 * a content hash: a fixed name would let one request's photo show up in another's card.
 */
export function artworkSource(artwork: Artwork): [src: string, data: Uint8Array] {
  const hash = createHash('sha256').update(artwork.data).digest('hex').slice(0, 24);
  return [`artwork/${hash}.png`, artwork.data];
}
