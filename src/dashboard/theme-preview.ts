/**
 * The Theme page's preview: a card drawn by the template renderer with a theme that may not
 * be saved yet. It is not a card request (no cache, no usage, no ETag), so it is bounded here:
 * every preview waits for a slot of the same render queue the API's cards use, and one account
 * may have one preview drawing and one waiting; past that it gets 429 at once. A page that
 * fires on every keystroke (it debounces anyway) therefore costs others one slot at most.
 */
import { assertTemplateAllowed, type Plan } from '../auth/plans.js';
import { AppError } from '../errors.js';
import type { WorkQueue } from '../lib/work-queue.js';
import type { TemplateRenderer } from '../render/template/renderer.js';
import { isSizeName, SIZE_NAMES, SIZES } from '../render/template/sizes.js';
import type { CardTheme, TemplateRegistry } from '../render/template/types.js';

/** What a preview draws: sample text in the account's name, at a size the template supports. */
export interface PreviewRequest {
  accountId: string;
  accountName: string;
  plan: Plan | undefined;
  template: string;
  size: string;
  theme: CardTheme | undefined;
}

/** The sample copy: long enough to show how the title and subtitle wrap. */
const SAMPLE = {
  title: 'Launch week: everything we shipped',
  subtitle: 'Five days, five releases, one brand that looks like you.',
};

/** Draws one preview PNG through the shared render queue, within the account's share. */
export async function renderPreview(
  deps: { renderer: TemplateRenderer; queue: WorkQueue; registry: TemplateRegistry },
  req: PreviewRequest,
  signal?: AbortSignal,
): Promise<Buffer> {
  if (!req.plan)
    throw new AppError('forbidden', 'Your plan is not configured on this server; contact its operator');
  const def = deps.registry.get(req.template);
  if (!def) {
    throw new AppError('bad_request', `template must be one of: ${deps.registry.names().join(', ')}`);
  }
  assertTemplateAllowed(req.plan, def.name);
  if (!isSizeName(req.size) || !def.sizes.includes(req.size)) {
    const valid = SIZE_NAMES.filter((s) => def.sizes.includes(s));
    throw new AppError('bad_request', `size must be one of: ${valid.join(', ')} (for template ${def.name})`);
  }
  const size = SIZES[req.size];
  const theme = def.uses.theme ? req.theme : undefined;
  const fields = { ...SAMPLE, ...(def.uses.brand ? { brand: req.accountName } : {}) };
  const owner = {
    id: `theme-preview:${req.accountId}`,
    concurrency: 1,
    maxWaiting: 1,
    overShare: () =>
      new AppError('rate_limited', 'Previews are being drawn for you already; the latest one follows', {
        retryAfter: 1,
      }),
  };
  const { png } = await deps.queue.run(
    () =>
      deps.renderer.render(def.name, fields, {
        ctx: { size, ...(theme ? { theme } : {}) },
        ...(signal ? { signal } : {}),
      }),
    signal,
    owner,
  );
  return png;
}
