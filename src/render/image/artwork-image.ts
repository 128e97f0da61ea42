/**
 * The image half of artwork: recognise the bytes, check their structure, and resize them to
 * exactly the target as PNG in the decode pool (a child process with CPU and memory limits).
 * The download half (guard, limits, cache) is artwork.ts.
 */
import type { ExtendOptions, Region } from 'sharp';
import { AppError } from '../../errors.js';
import { formatMegapixels } from './artwork-format.js';
import { decodeFailure } from './decode-errors.js';
import type { DecodedMeta, DecodeStep, ImageDecoder } from './decode-pool.js';
import { checkStructure, type StructureLimits } from './structure.js';

/** A decoded image, exactly the target's size. */
export interface PreparedArtwork {
  data: Buffer;
  width: number;
  height: number;
}

/** What to draw into. */
export interface ArtworkTarget {
  width: number;
  height: number;
  fit: 'cover' | 'contain';
}

/** What preparing an image needs besides its bytes. */
export interface PrepareContext {
  decoder: ImageDecoder;
  limits: StructureLimits;
  /** Whose image: its decodes share one slot of the pool (fair share). */
  account?: string;
  /** Called with the reason of every refusal (metrics). */
  failed: (reason: string) => void;
}

/** Decodes sniffed bytes and resizes them to `target` in the decode pool; refusals are 422s naming imageUrl. */
export async function prepareArtwork(
  bytes: Buffer,
  target: ArtworkTarget,
  ctx: PrepareContext,
): Promise<PreparedArtwork> {
  const { decoder, limits, failed } = ctx;
  const kind = sniff(bytes);
  if (!kind) {
    failed('unsupported');
    throw new AppError('unprocessable', 'imageUrl is not a supported image (PNG, JPEG, WebP, GIF or AVIF)', {
      detail: `magic bytes ${bytes.subarray(0, 12).toString('hex')}`,
    });
  }
  checkStructure(bytes, kind, 'imageUrl', limits, failed);
  const mapped = (err: unknown) =>
    decodeFailure(err, { what: 'imageUrl', kind, maxPixels: limits.maxPixels, decoder }, failed);
  // Header-only read: refuse a pixel bomb before any decoding buffer is allocated.
  const meta = await decoder
    .metadata(bytes, { limitInputPixels: false, pages: 1 }, ctx.account)
    .catch((err) => {
      throw mapped(err);
    });
  const pixels = (meta.width ?? 0) * (meta.pageHeight ?? meta.height ?? 0);
  if (pixels > limits.maxPixels) {
    failed('too_many_pixels');
    throw new AppError(
      'unprocessable',
      `imageUrl has more than ${formatMegapixels(limits.maxPixels)} megapixels`,
      {
        detail: `${kind} ${meta.width}x${meta.pageHeight ?? meta.height}`,
      },
    );
  }
  const steps: DecodeStep[] = [['autoOrient']];
  // A small image (smaller than a quarter of the frame both ways) is drawn whole at most 4×
  // in either fit: covering a window with a 32 px favicon only made a blur of one corner.
  const small = cappedContain(meta, target);
  const crop = !small && target.fit === 'cover' ? extremeCoverCrop(meta, target) : undefined;
  if (crop) steps.push(['extract', crop]);
  // sharp runs one resize per pipeline: a small image is enlarged and padded to the target
  // instead of resized to it.
  if (small) steps.push(['resize', small.width, small.height, { fit: 'fill' }], ['extend', small.pad]);
  else {
    // contain letterboxes onto transparency so the template always gets exactly w x h.
    steps.push(['resize', target.width, target.height, { fit: target.fit, background: TRANSPARENT }]);
  }
  steps.push(['png', { compressionLevel: 2 }]);
  const input = {
    limitInputPixels: limits.maxPixels,
    // 'error' refuses broken files but tolerates the harmless warnings common in real JPEGs.
    failOn: 'error' as const,
    // GIF (and animated WebP/AVIF): the first frame only.
    pages: 1,
    page: 0,
  };
  return decoder.transform(bytes, input, steps, ctx.account).catch((err) => {
    throw mapped(err);
  });
}

/** The image type from its magic number, or null; the Content-Type header is never trusted. */
export function sniff(b: Buffer): 'png' | 'jpeg' | 'webp' | 'gif' | 'avif' | null {
  if (b.length >= 8 && b.readUInt32BE(0) === 0x89504e47 && b.readUInt32BE(4) === 0x0d0a1a0a) return 'png';
  if (b.length >= 3 && b[0] === 0xff && b[1] === 0xd8 && b[2] === 0xff) return 'jpeg';
  if (b.length >= 12 && b.toString('latin1', 0, 4) === 'RIFF' && b.toString('latin1', 8, 12) === 'WEBP') {
    return 'webp';
  }
  if (b.length >= 6 && /^GIF8[79]a$/.test(b.toString('latin1', 0, 6))) return 'gif';
  if (b.length >= 16 && b.toString('latin1', 4, 8) === 'ftyp') {
    // ISO-BMFF: major brand, then compatible brands up to the box size. Only AV1 brands: the
    // bundled libheif has no HEVC decoder, so a HEIC would fail later with a worse message.
    const boxSize = Math.min(b.readUInt32BE(0), b.length);
    for (let i = 8; i + 4 <= boxSize; i += 4) {
      if (i === 12) continue; // minor version
      const brand = b.toString('latin1', i, i + 4);
      if (brand === 'avif' || brand === 'avis') return 'avif';
    }
  }
  return null;
}

/** Past this many pixels on a side, libvips's resize refuses its own output ("out of range"). */
const MAX_INTERMEDIATE_SIDE = 16_384;

/**
 * `cover` scales the image until it fills the target, then crops: a 100000×1 banner would first
 * be scaled to ~60 million pixels wide, which libvips refuses. For such extreme shapes the
 * centre region of the target's proportions is cut out first, which is what cover keeps anyway.
 * Ordinary images never take this path, so their pixels do not change.
 */
function extremeCoverCrop(meta: DecodedMeta, target: { width: number; height: number }): Region | undefined {
  const swap = (meta.orientation ?? 1) >= 5; // EXIF 5–8: shown rotated a quarter turn
  const w0 = meta.width ?? 0;
  const h0 = meta.pageHeight ?? meta.height ?? 0;
  const [w, h] = swap ? [h0, w0] : [w0, h0];
  if (w < 1 || h < 1) return undefined;
  const scale = Math.max(target.width / w, target.height / h);
  if (Math.max(w, h) * scale <= MAX_INTERMEDIATE_SIDE) return undefined;
  const ratio = target.width / target.height;
  const width = Math.max(1, Math.min(w, Math.round(h * ratio)));
  const height = Math.max(1, Math.min(h, Math.round(w / ratio)));
  return { left: Math.floor((w - width) / 2), top: Math.floor((h - height) / 2), width, height };
}

const TRANSPARENT = { r: 0, g: 0, b: 0, alpha: 0 };

/** How far `contain` enlarges a small image: past this a logo or icon is only a blur. */
const MAX_CONTAIN_UPSCALE = 4;

/**
 * A small image (a 16×16 favicon, a 64 px logo) is drawn at most 4× its size, centred on
 * transparency, rather than blown up to fill the frame (24× for a favicon: a blur); only when
 * it needs more than 4× both ways, so a wide banner still fills a cover frame.
 */
function cappedContain(
  meta: DecodedMeta,
  target: { width: number; height: number },
): { width: number; height: number; pad: ExtendOptions } | undefined {
  const swap = (meta.orientation ?? 1) >= 5;
  const w0 = meta.width ?? 0;
  const h0 = meta.pageHeight ?? meta.height ?? 0;
  const [w, h] = swap ? [h0, w0] : [w0, h0];
  if (w < 1 || h < 1) return undefined;
  if (Math.min(target.width / w, target.height / h) <= MAX_CONTAIN_UPSCALE) return undefined;
  const width = Math.round(w * MAX_CONTAIN_UPSCALE);
  const height = Math.round(h * MAX_CONTAIN_UPSCALE);
  const left = Math.floor((target.width - width) / 2);
  const top = Math.floor((target.height - height) / 2);
  return {
    width,
    height,
    pad: {
      left,
      right: target.width - width - left,
      top,
      bottom: target.height - height - top,
      background: TRANSPARENT,
    },
  };
}
