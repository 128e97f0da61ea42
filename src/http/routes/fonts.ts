import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../../errors.js';
import { type FontService, tooLarge } from '../../fonts/service.js';
import type { FontRecord } from '../../fonts/types.js';
import { logAppError, sendError, toAppError } from '../errors.js';
import { documentOnly } from '../schemas/common.js';
import { deleteFontSchema, FONT_SCHEMAS, listFontsSchema, uploadFontSchema } from '../schemas/fonts.js';

/**
 * The caller's uploaded fonts (issue 30 §3): authenticated like /webhooks (access.ts protects
 * the path), counted against the account's rate limit; another account's font answers 404.
 * Registered in a scope of its own: its raw-body parser and 413 message stay here.
 */
export function registerFontRoutes(app: FastifyInstance, deps: { fonts: FontService }): void {
  const fonts = deps.fonts;
  const limit = fonts.limits.maxBytes;
  for (const schema of FONT_SCHEMAS) app.addSchema(schema);
  // Any Content-Type but JSON is the font file (font/woff2, application/octet-stream, …).
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: limit }, (_req, body, done) =>
    done(null, body),
  );
  app.setErrorHandler((err: unknown, req: FastifyRequest, reply: FastifyReply) => {
    const appErr =
      (err as { code?: string }).code === 'FST_ERR_CTP_BODY_TOO_LARGE'
        ? new AppError('payload_too_large', tooLarge(limit))
        : toAppError(err, limit);
    logAppError(req.log, appErr, err);
    return sendError(reply, appErr);
  });

  const admit = async (req: FastifyRequest, reply: FastifyReply): Promise<string> =>
    (await app.access.admit(req, reply, () => {})).accountId;

  app.post('/fonts', { ...documentOnly(uploadFontSchema), bodyLimit: limit }, async (req, reply) => {
    const family = familyParam(req.query);
    if (!Buffer.isBuffer(req.body) || req.body.length === 0) {
      throw new AppError(
        'bad_request',
        'Send the font file as the request body (Content-Type font/woff2, font/ttf, … or application/octet-stream)',
      );
    }
    const accountId = await admit(req, reply);
    const font = await fonts.add(accountId, req.body, family);
    reply.code(201).header('Cache-Control', 'no-store').header('Location', `/fonts/${font.id}`);
    return toJson(font);
  });

  app.get('/fonts', documentOnly(listFontsSchema), async (req, reply) => {
    return { fonts: (await fonts.list(await admit(req, reply))).map(toJson) };
  });

  app.delete(
    '/fonts/:id',
    { ...documentOnly(deleteFontSchema), config: { bodyless: true } },
    async (req, reply) => {
      const { id } = req.params as { id: string };
      const accountId = await admit(req, reply);
      if (!(await fonts.remove(accountId, id))) {
        throw new AppError('not_found', `No font ${JSON.stringify(id.slice(0, 64))}`);
      }
      return reply.code(204).send();
    },
  );
}

function familyParam(query: unknown): string | undefined {
  const q = (query ?? {}) as Record<string, unknown>;
  const stray = Object.keys(q).find((k) => k !== 'family');
  if (stray !== undefined) {
    throw new AppError(
      'bad_request',
      `Unknown query parameter ${JSON.stringify(stray.slice(0, 40))}; use family`,
    );
  }
  if (q.family === undefined) return undefined;
  if (typeof q.family !== 'string') throw new AppError('bad_request', 'family must be given once');
  return q.family;
}

/** A font as the API, the CLI and the dashboard show it. */
export function toJson(f: FontRecord) {
  return {
    id: f.id,
    family: f.family,
    weight: f.weight,
    weightRange: f.weightRange,
    style: f.italic ? 'italic' : 'normal',
    format: f.format,
    axes: f.axes,
    glyphs: f.glyphs,
    size: f.size,
    sha256: f.sha256,
    createdAt: new Date(f.createdAt).toISOString(),
  };
}
