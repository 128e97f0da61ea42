/**
 * A theme's logo: any PNG, JPEG, WebP, GIF or AVIF file, at most `maxBytes`, checked for
 * decoding bombs from its structure (scan count, metadata chunks: render/image/structure.ts)
 * and its header, then normalised in the decode pool (a child process with CPU and memory
 * limits) to a PNG that fits 512×512 with its transparency kept. Normalising once at upload
 * means a card never decodes a user's file.
 */
import { createHash } from 'node:crypto';
import { AppError } from '../errors.js';
import { formatMegabytes, formatMegapixels } from '../render/image/artwork-format.js';
import { sniff } from '../render/image/artwork-image.js';
import { decodeFailure } from '../render/image/decode-errors.js';
import type { ImageDecoder } from '../render/image/decode-pool.js';
import { checkStructure, STRUCTURE_DEFAULTS } from '../render/image/structure.js';

/** The largest side of a stored logo. */
export const LOGO_MAX_SIDE = 512;

/** A logo as stored and drawn. */
export interface NormalisedLogo {
  data: Buffer;
  width: number;
  height: number;
  /** Hex SHA-256 of `data`: part of the theme's version. */
  sha256: string;
}

const fail = (message: string, detail?: string, cause?: unknown) =>
  new AppError('unprocessable', message, { ...(detail ? { detail } : {}), cause });

/**
 * Checks and normalises `bytes` in the decode pool (CPU and memory limits, one slot per
 * `account`); `what` names the input in messages (`logo`, `logoUrl`).
 */
export async function normaliseLogo(
  bytes: Buffer,
  limits: { maxBytes: number; maxPixels: number },
  what: string,
  deps: { decoder: ImageDecoder; account?: string },
): Promise<NormalisedLogo> {
  if (bytes.length > limits.maxBytes) {
    throw new AppError('payload_too_large', `${what} is larger than ${formatMegabytes(limits.maxBytes)}`);
  }
  const kind = sniff(bytes);
  if (!kind) throw fail(`${what} is not a supported image (PNG, JPEG, WebP, GIF or AVIF)`);
  checkStructure(bytes, kind, what, { ...STRUCTURE_DEFAULTS, maxPixels: limits.maxPixels });
  const { decoder, account } = deps;
  const mapped = (err: unknown) => decodeFailure(err, { what, kind, maxPixels: limits.maxPixels, decoder });
  // Header only: a 100000×100000 PNG of a few kilobytes is refused before any pixel buffer exists.
  const meta = await decoder.metadata(bytes, { limitInputPixels: false, pages: 1 }, account).catch((err) => {
    throw mapped(err);
  });
  const pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);
  if (pixels > limits.maxPixels) {
    throw fail(
      `${what} has more than ${formatMegapixels(limits.maxPixels)} megapixels`,
      `${kind} ${meta.width}x${meta.pageHeight ?? meta.height}`,
    );
  }
  const { data, width, height } = await decoder
    .transform(
      bytes,
      { limitInputPixels: limits.maxPixels, failOn: 'error', pages: 1, page: 0 },
      [
        ['autoOrient'],
        ['resize', LOGO_MAX_SIDE, LOGO_MAX_SIDE, { fit: 'inside', withoutEnlargement: true }],
        ['ensureAlpha'],
        ['png', { compressionLevel: 9 }],
      ],
      account,
    )
    .catch((err) => {
      throw mapped(err);
    });
  return { data, width, height, sha256: createHash('sha256').update(data).digest('hex') };
}
