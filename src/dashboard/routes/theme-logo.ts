import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { formatMegabytes } from '../../render/image/artwork-format.js';
import { type DashboardDeps, sessionOf } from '../context.js';
import { rawBodyParser } from './raw-body.js';

/**
 * POST /dashboard/theme/logo: the file's bytes as the body (`application/octet-stream`, see
 * raw-body.ts), sent by the page's script with the CSRF token in a header. In its own scope,
 * so the byte parser applies to this route only.
 */
export function registerLogoUpload(scope: FastifyInstance, deps: DashboardDeps): void {
  const limit = deps.config.themeLogoMaxBytes;
  const tooLarge = () => new AppError('payload_too_large', `logo is larger than ${formatMegabytes(limit)}`);

  scope.register(async (upload) => {
    upload.addContentTypeParser('application/octet-stream', rawBodyParser(limit, tooLarge));

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
