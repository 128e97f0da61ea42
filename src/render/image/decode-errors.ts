/** One mapping from what went wrong in a decode to the 422 a user reads, shared by artwork and logos. */
import { AppError } from '../../errors.js';
import { formatMegabytes, formatMegapixels, formatSeconds } from './artwork-format.js';
import { DecodeLimitError, type ImageDecoder } from './decode-pool.js';

/** The AppError for `err` thrown while decoding `what` (imageUrl, logo, logoUrl) of type `kind`. */
export function decodeFailure(
  err: unknown,
  ctx: { what: string; kind: string; maxPixels: number; decoder: ImageDecoder },
  failed: (reason: string) => void = () => {},
): unknown {
  // Queue refusals (429, 503) and our own refusals pass through unchanged.
  if (err instanceof AppError) return err;
  const fail = (reason: string, message: string) => {
    failed(reason);
    return new AppError('unprocessable', `${ctx.what} ${message}`, {
      detail: (err as Error).message,
      cause: err,
    });
  };
  if (err instanceof DecodeLimitError && err.limit === 'stalled') {
    // The machine starved the child of CPU: not the image's fault, so not a 422 (nor cached).
    return new AppError('unavailable', 'The image decoder is busy; retry shortly', {
      retryAfter: 1,
      detail: err.message,
      cause: err,
    });
  }
  if (err instanceof DecodeLimitError && err.limit === 'time') {
    return fail(
      'decode_time',
      `took too long to decode (more than ${formatSeconds(ctx.decoder.limits.cpuMs)} of CPU)`,
    );
  }
  if (err instanceof DecodeLimitError && err.limit === 'memory') {
    return fail(
      'decode_memory',
      `needs too much memory to decode (more than ${formatMegabytes(ctx.decoder.limits.memoryBytes)})`,
    );
  }
  if (/pixel limit/i.test((err as Error).message)) {
    return fail('too_many_pixels', `has more than ${formatMegapixels(ctx.maxPixels)} megapixels`);
  }
  return fail('decode', `could not be decoded as ${ctx.kind.toUpperCase()}`);
}
