import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { tooLarge } from '../../fonts/service.js';
import { toJson } from '../../http/routes/fonts.js';
import { type DashboardDeps, seeOther, sessionOf } from '../context.js';
import { rawBodyParser } from './raw-body.js';

/**
 * The Theme page's fonts (issue 30 §3, "uploaded per account (dashboard, API, CLI)"):
 * - POST /dashboard/theme/fonts?family=NAME: the file's bytes as the body, sent by the page's
 *   script with the CSRF token in a header; the same checks as POST /fonts (the font service
 *   parses it in a child process before keeping it), answered as JSON for the script to show.
 * - POST /dashboard/theme/fonts/:id/remove: a plain form; only the signed-in account's fonts
 *   can be named, another account's id is a 404 like an unknown one.
 * Without a font service (none configured) the routes are not registered.
 */
export function registerFontUpload(scope: FastifyInstance, deps: DashboardDeps): void {
  const fonts = deps.themes.fonts;
  if (!fonts) return;
  const limit = fonts.limits.maxBytes;

  scope.register(async (upload) => {
    upload.addContentTypeParser(
      'application/octet-stream',
      { bodyLimit: limit },
      rawBodyParser(limit, () => new AppError('payload_too_large', tooLarge(limit))),
    );
    upload.post(
      '/theme/fonts',
      { config: { dashboard: 'api' }, bodyLimit: limit },
      async (req: FastifyRequest, reply) => {
        const { account } = sessionOf(req);
        if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
          throw new AppError('bad_request', 'Choose a font file (WOFF2, WOFF, TTF or OTF) to upload');
        }
        const q = (req.query ?? {}) as Record<string, unknown>;
        const family = typeof q.family === 'string' && q.family.trim() !== '' ? q.family.trim() : undefined;
        const font = await fonts.add(account.id, req.body, family);
        return reply.code(201).header('Cache-Control', 'no-store').send(toJson(font));
      },
    );
  });

  scope.post<{ Params: { id: string } }>(
    '/theme/fonts/:id/remove',
    { config: { dashboard: 'page' } },
    async (req, reply) => {
      const { account } = sessionOf(req);
      if (!(await fonts.remove(account.id, req.params.id))) {
        throw new AppError('not_found', `No font ${JSON.stringify(req.params.id.slice(0, 64))}`);
      }
      return seeOther(reply, '/dashboard/theme?notice=font-removed');
    },
  );
}
