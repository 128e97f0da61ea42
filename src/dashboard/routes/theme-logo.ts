import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { formatMegabytes } from '../../render/image/artwork-format.js';
import { type DashboardDeps, sessionOf } from '../context.js';

/**
 * POST /dashboard/theme/logo: the file's bytes as the body (`application/octet-stream`), sent
 * by the page's script with the CSRF token in a header. Raw bytes, not base64 in JSON: a third
 * smaller, and the body is counted as it arrives, so a client that sends more than the limit
 * is cut off at the limit instead of being read whole. In its own scope, so the byte parser
 * applies to this route only.
 */
export function registerLogoUpload(scope: FastifyInstance, deps: DashboardDeps): void {
  const limit = deps.config.themeLogoMaxBytes;
  const tooLarge = () => new AppError('payload_too_large', `logo is larger than ${formatMegabytes(limit)}`);

  scope.register(async (upload) => {
    upload.addContentTypeParser('application/octet-stream', (req, payload, done) => {
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
      payload.on('error', (err) => finish(err));
    });

    upload.post('/theme/logo', { config: { dashboard: 'api' } }, async (req: FastifyRequest, reply) => {
      const { account } = sessionOf(req);
      if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
        throw new AppError(
          'bad_request',
          'Send the logo file as the request body (application/octet-stream)',
        );
      }
      const theme = await deps.themes.set(account.id, { logo: { file: req.body } });
      return reply.send({
        logo: { width: theme.logo!.width, height: theme.logo!.height },
        updatedAt: theme.updatedAt,
      });
    });
  });
}
