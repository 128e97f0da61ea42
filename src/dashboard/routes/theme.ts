import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from '../../errors.js';
import { clientGoneSignal } from '../../http/client-gone.js';
import { STATUS } from '../../http/errors.js';
import { DEFAULT_THEME, type ThemeInput } from '../../themes/service.js';
import { type DashboardDeps, field, seeOther, sendPage, sessionOf } from '../context.js';
import { createPreviewer } from '../theme-preview.js';
import { type ThemeForm, themePage } from '../views/theme.js';
import { registerFontUpload } from './theme-fonts.js';
import { registerLogoUpload } from './theme-logo.js';

const NOTICES = {
  saved: { kind: 'success', text: 'Theme saved. Cards drawn from now on use it.' },
  reset: { kind: 'info', text: 'Theme removed. Cards use each template’s own look again.' },
  'logo-removed': { kind: 'success', text: 'Logo removed.' },
  'font-added': {
    kind: 'success',
    text: 'Font uploaded. Choose its family under “Your font” and save to set your cards in it.',
  },
  'font-removed': { kind: 'success', text: 'Font removed. Cards set in it change at once.' },
} as const;

/** What a save, a preview or a page refused with and shows in the page (not a server fault). */
const SHOWN = ['bad_request', 'unprocessable', 'payload_too_large', 'rate_limited', 'unavailable'] as const;

function formOf(body: unknown): ThemeForm {
  return {
    background: field(body, 'background'),
    text: field(body, 'text'),
    accent: field(body, 'accent'),
    font: field(body, 'font'),
    // Absent from a form that has no such field: the saved family is kept, not cleared.
    ...(typeof (body as Record<string, unknown> | null)?.fontFamily === 'string'
      ? { fontFamily: field(body, 'fontFamily') }
      : {}),
    logoUrl: field(body, 'logoUrl'),
  };
}

/** The colour and font part of a form or preview body; empty strings are sent on, to be refused by name. */
function inputOf(form: ThemeForm): Omit<ThemeInput, 'logo'> {
  return {
    background: form.background,
    text: form.text,
    accent: form.accent,
    font: form.font,
    ...(form.fontFamily !== undefined ? { fontFamily: form.fontFamily } : {}),
  };
}

/** The Theme page: see, change and preview the signed-in account's brand theme. */
export function registerThemeRoutes(scope: FastifyInstance, deps: DashboardDeps): void {
  const { themes } = deps;
  const { plans } = deps.accounts;
  const page = { config: { dashboard: 'page' as const } };
  const api = { config: { dashboard: 'api' as const } };
  const { registry } = deps;
  const renderPreview = createPreviewer({ render: deps.render, registry });

  const show = async (
    req: FastifyRequest,
    reply: FastifyReply,
    opts: { form?: ThemeForm; error?: string; notice?: keyof typeof NOTICES | undefined } = {},
  ) => {
    const { account } = sessionOf(req);
    const saved = await themes.read(account.id);
    const current = saved ?? DEFAULT_THEME;
    const form = opts.form ?? { ...current, fontFamily: saved?.fontFamily ?? '', logoUrl: '' };
    const fonts = (await themes.fonts?.list(account.id)) ?? [];
    const notice = opts.notice && Object.hasOwn(NOTICES, opts.notice) ? NOTICES[opts.notice] : null;
    return sendPage(
      reply,
      themePage({
        account,
        csrf: req.dash!.csrf,
        plan: plans.get(account.plan),
        templates: registry.list(),
        form,
        fonts,
        saved: saved ? { updatedAt: saved.updatedAt, logo: saved.logo ?? null } : null,
        notice,
        error: opts.error ?? null,
      }),
      opts.error ? STATUS.bad_request : 200,
    );
  };

  scope.get<{ Querystring: { notice?: string } }>('/theme', page, async (req, reply) =>
    show(req, reply, { notice: req.query.notice as keyof typeof NOTICES | undefined }),
  );

  scope.post('/theme', page, async (req, reply) => {
    const { account } = sessionOf(req);
    const form = formOf(req.body);
    try {
      await themes.set(account.id, {
        ...inputOf(form),
        ...(form.logoUrl !== '' ? { logo: { url: form.logoUrl } } : {}),
      });
    } catch (err) {
      if (!isAppError(err, ...SHOWN)) throw err;
      return show(req, reply, { form, error: sentence(err.message) });
    }
    return seeOther(reply, '/dashboard/theme?notice=saved');
  });

  scope.post('/theme/reset', page, async (req, reply) => {
    await themes.clear(sessionOf(req).account.id);
    return seeOther(reply, '/dashboard/theme?notice=reset');
  });

  scope.post('/theme/logo/remove', page, async (req, reply) => {
    const { account } = sessionOf(req);
    if (await themes.read(account.id)) await themes.set(account.id, { logo: null });
    return seeOther(reply, '/dashboard/theme?notice=logo-removed');
  });

  // The stored logo of the signed-in account only: there is no way to name another account's.
  scope.get('/theme/logo.png', page, async (req, reply) => {
    const theme = await themes.read(sessionOf(req).account.id);
    if (!theme?.logo) throw new AppError('not_found', 'Your theme has no logo');
    return reply.type('image/png').header('Cache-Control', 'private, no-cache').send(theme.logo.data);
  });

  const preview = async (
    req: FastifyRequest,
    reply: FastifyReply,
    template: string,
    size: string,
    draft: boolean,
  ) => {
    const { account } = sessionOf(req);
    // Without a draft the card service draws the account's saved theme itself.
    const theme = draft
      ? await themes.draft(account.id, {
          ...inputOf(formOf(req.body)),
          ...(field(req.body, 'logo') === 'none' ? { logo: null } : {}),
        })
      : undefined;
    const png = await renderPreview(
      {
        accountId: account.id,
        accountName: account.name,
        plan: plans.get(account.plan),
        template,
        size,
        draft: theme,
      },
      clientGoneSignal(req, reply),
    );
    return reply.type('image/png').header('Cache-Control', 'no-store').send(png);
  };

  // Without script: the saved theme (or none), so the page shows a real card before any change.
  scope.get<{ Querystring: { template?: string; size?: string } }>(
    '/theme/preview.png',
    page,
    async (req, reply) => preview(req, reply, req.query.template ?? '', req.query.size ?? 'og', false),
  );

  // With script: the form's values as they are typed (JSON, the CSRF token in a header).
  scope.post('/theme/preview', api, async (req, reply) =>
    preview(req, reply, field(req.body, 'template'), field(req.body, 'size') || 'og', true),
  );

  registerLogoUpload(scope, deps);
  registerFontUpload(scope, deps);
}

/** An API message as a sentence for the page (it starts with a field name, kept as spelled). */
function sentence(message: string): string {
  return /[.!?]$/.test(message) ? message : `${message}.`;
}
