/**
 * The Theme page's preview: a card drawn with a theme that may not be saved yet, through the
 * same render command as the API's cards (the plan's template check included). It is not a
 * card request (no budget, no usage, no ETag, nothing cached), so it is bounded here: one
 * account may have one preview drawing and one waiting; past that it gets 429 at once. A page
 * that fires on every keystroke (it debounces anyway) therefore costs others one slot at most.
 */
import type { Plan } from '../auth/plans.js';
import { AppError } from '../errors.js';
import type { RenderCommand } from '../render/command.js';
import { isSizeName, SIZE_NAMES } from '../render/template/sizes.js';
import type { CardTheme, TemplateRegistry } from '../render/template/types.js';

/** What a preview draws: sample text in the account's name, at a size the template supports. */
export interface PreviewRequest {
  accountId: string;
  accountName: string;
  plan: Plan | undefined;
  template: string;
  size: string;
  /** A draft to draw instead of the saved theme; absent: the account's saved theme, if any. */
  draft: CardTheme | undefined;
}

/** The sample copy: long enough to show how the title and subtitle wrap. */
const SAMPLE = {
  title: 'Launch week: everything we shipped',
  subtitle: 'Five days, five releases, one brand that looks like you.',
};

/** Previews of one account in flight at once: one drawing, one waiting. */
const PER_ACCOUNT = 2;

/** Draws previews through the render command, within each account's bound. */
export function createPreviewer(deps: { render: Pick<RenderCommand, 'card'>; registry: TemplateRegistry }) {
  const inFlight = new Map<string, number>();
  return async function renderPreview(req: PreviewRequest, signal?: AbortSignal): Promise<Buffer> {
    if (!req.plan)
      throw new AppError('forbidden', 'Your plan is not configured on this server; contact its operator');
    const def = deps.registry.get(req.template);
    if (!def) {
      throw new AppError('bad_request', `template must be one of: ${deps.registry.names().join(', ')}`);
    }
    if (!isSizeName(req.size) || !def.sizes.includes(req.size)) {
      const valid = SIZE_NAMES.filter((s) => def.sizes.includes(s));
      throw new AppError(
        'bad_request',
        `size must be one of: ${valid.join(', ')} (for template ${def.name})`,
      );
    }
    const held = inFlight.get(req.accountId) ?? 0;
    if (held >= PER_ACCOUNT) {
      throw new AppError('rate_limited', 'Previews are being drawn for you already; the latest one follows', {
        retryAfter: 1,
      });
    }
    inFlight.set(req.accountId, held + 1);
    try {
      const result = await deps.render.card(
        {
          template: def.name,
          // The renderer takes what the template declares; the sample fills the built-ins' two.
          fields: { ...SAMPLE },
          ...(def.uses.brand ? { brand: req.accountName } : {}),
          size: req.size,
        },
        { accountId: req.accountId, plan: req.plan, limit: 'none' },
        { ...(signal ? { signal } : {}), ...(req.draft ? { draftTheme: req.draft } : {}) },
      );
      if (result.kind !== 'png') throw new Error('a preview without If-None-Match answered 304');
      return result.body;
    } finally {
      const left = (inFlight.get(req.accountId) ?? 1) - 1;
      if (left === 0) inFlight.delete(req.accountId);
      else inFlight.set(req.accountId, left);
    }
  };
}
