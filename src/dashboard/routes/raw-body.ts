import type { FastifyRequest } from 'fastify';
import type { AppError } from '../../errors.js';

/**
 * A content-type parser for a file sent as the raw request body (`application/octet-stream`) by
 * a page's script: counted as it arrives, so a client that sends more than `limit` is cut off at
 * the limit instead of being read whole (a declared Content-Length over it is refused at once).
 * Raw bytes, not base64 in JSON: a third smaller.
 */
export function rawBodyParser(limit: number, tooLarge: () => AppError) {
  return (
    req: FastifyRequest,
    payload: NodeJS.ReadableStream & { destroy(): void },
    done: (err: Error | null, body?: Buffer) => void,
  ) => {
    const declared = Number(req.headers['content-length'] ?? Number.NaN);
    if (declared > limit) return done(tooLarge(), undefined);
    const chunks: Buffer[] = [];
    let size = 0;
    let finished = false;
    const finish = (err: Error | null, body?: Buffer) => {
      if (finished) return;
      finished = true;
      done(err, body);
    };
    payload.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > limit) {
        payload.destroy();
        return finish(tooLarge());
      }
      chunks.push(chunk);
    });
    payload.on('end', () => finish(null, Buffer.concat(chunks)));
    payload.on('error', (err: Error) => finish(err));
  };
}
