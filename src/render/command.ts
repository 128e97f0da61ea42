/**
 * The one render call outside HTTP (design §11): plan (403) → rate limit (429) → service →
 * usage, for a request already validated. The HTTP routes, the dashboard's previews, the CLI and
 * the job workers all render through it, so a card costs the same budget and counts the same
 * usage whoever asks for it; each caller only parses its input and presents the answer.
 */
import type { Plan } from '../auth/plans.js';
import { AppError } from '../errors.js';
import { type Budget, budgetOf, RATE_LIMITED } from '../ratelimit/budgets.js';
import type { RateDecision, RateLimiter } from '../ratelimit/limiter.js';
import type { UsageKind } from '../storage/store.js';
import type { UsageRecorder } from '../usage/recorder.js';
import { CONTENT_TYPES } from './format.js';
import { allowCard, allowScreenshot } from './plan-gate.js';
import { SHOT_CONTENT_TYPES } from './screenshot/options.js';
import type { ScreenshotRequest } from './screenshot/request.js';
import type { ScreenshotService, ShotResult } from './screenshot/types.js';
import type { TemplateRequest } from './template/request.js';
import type { CardResult, TemplateService } from './template/service.js';
import type { CardTheme } from './template/types.js';

/**
 * What a render resolves to: an image (`kind: 'png'` for any format, the name predating the
 * others; `contentType` says which, PNG when absent), or "you already have it" (304).
 */
export type Rendered = {
  etag: string;
  contentType?: string;
  /** HIT or MISS; absent where the answer does not say (a card's 304). */
  cache?: 'HIT' | 'MISS';
  timings: Readonly<Record<string, number | undefined>>;
} & ({ kind: 'not-modified' } | { kind: 'png'; body: Buffer });

/** A card as rendered: the template service's answer with its content type. */
export type CardRendered = CardResult & { contentType: string };
/** A screenshot as rendered: the screenshot service's answer with its content type. */
export type ShotRendered = ShotResult & { contentType: string };

/**
 * The budget a render spends: an API key's request (the account's rate limit), a signed URL's
 * (its key's signed-URL budget), a job's item (the account's rate limit, as the item runs: issue
 * 28 §1), or none: a preview with a bound of its own, or a local CLI render. `none` spends no
 * budget and counts no usage, since no one asked the API for it.
 */
export type RenderLimit = 'key' | 'signed' | 'job' | 'none';

/** Who a render is for: the account (cache scope, usage), its plan, and which budget it spends. */
export type RenderCaller<L extends RenderLimit = RenderLimit> = {
  accountId: string;
  plan: Plan;
  keyId?: string;
} & (L extends 'signed' ? { limit: 'signed'; keyId: string } : { limit: L });

/** The state of the budget a render was counted against (allowed or not): the HTTP rate-limit headers. */
export interface BudgetState {
  /** The policy's name (the plan's, `-signed` for the signed-URL budget). */
  policy: string;
  decision: RateDecision;
}

/** What every render call may take besides its input. */
export interface RenderOptions {
  /** Aborts waits (a queue slot, an artwork fetch) and unshared work when the caller has gone. */
  signal?: AbortSignal;
  /** The client's ETag list: a match answers `not-modified`. */
  ifNoneMatch?: string;
  /** Told once the render was counted against its budget, before a 429 is thrown. */
  onBudget?: (state: BudgetState) => void;
}

/** A card's options: the Theme page draws a theme that is not saved yet. */
export interface CardOptions extends RenderOptions {
  /** Drawn instead of the account's saved theme (on templates that draw one); never cached. */
  draftTheme?: CardTheme;
}

/** Renders cards and screenshots for a caller, within its plan and budget. */
export interface RenderCommand<L extends RenderLimit = RenderLimit> {
  /** A card: 403 when the plan lacks the template, 429 past the budget, then the card. */
  card(input: TemplateRequest, caller: RenderCaller<L>, opts?: CardOptions): Promise<CardRendered>;
  /** A screenshot: 403 when the plan lacks the viewport or an option, 429 past the budget. */
  screenshot(input: ScreenshotRequest, caller: RenderCaller<L>, opts?: RenderOptions): Promise<ShotRendered>;
}

/** The services a command renders with. */
export interface RenderServices {
  templates: Pick<TemplateService, 'resolve'>;
  screenshots: Pick<ScreenshotService, 'resolve'>;
}

/** The budget and usage a metered command counts renders against. */
export interface RenderMeter {
  limiter: Pick<RateLimiter, 'consume'>;
  usage: Pick<UsageRecorder, 'record'>;
  /** One render refused with 429 (metrics by plan). */
  onRateLimited?: (plan: string) => void;
}

/** The command every caller kind uses: the server's, the job workers'. */
export function createRenderCommand(deps: RenderServices & RenderMeter): RenderCommand {
  return build(deps, deps);
}

/**
 * A command without budgets or usage (no limiter, no database): only `none` callers, which the
 * types enforce. For a process that draws cards for its operator (`cardshot render`).
 */
export function createUnmeteredRenderCommand(
  deps: Pick<RenderServices, 'templates'>,
): Pick<RenderCommand<'none'>, 'card'> {
  return build(deps, null);
}

function build(
  services: Pick<RenderServices, 'templates'> & Partial<Pick<RenderServices, 'screenshots'>>,
  meter: RenderMeter | null,
): RenderCommand {
  /** Counts the render against the caller's budget; 429 (counted as `rate_limited`) past it. */
  const admit = async (caller: RenderCaller, opts: RenderOptions): Promise<void> => {
    if (caller.limit === 'none') return;
    if (!meter) throw misuse(`a ${caller.limit} render on a command without budgets`);
    const budget = budgetFor(caller);
    const decision = await meter.limiter.consume(budget.key, budget.limit, budget.windowMs);
    opts.onBudget?.({ policy: budget.name, decision });
    if (decision.allowed) return;
    // A job's item is not refused but put off until the budget has room (the worker re-queues
    // it), so it is no 429 to count: counted, an item put off 50 times would count 50.
    if (caller.limit !== 'job') {
      meter.usage.record(caller.accountId, 'rate_limited');
      meter.onRateLimited?.(caller.plan.name);
    }
    throw new AppError('rate_limited', RATE_LIMITED, {
      retryAfter: decision.resetMs / 1000,
      detail: `account ${caller.accountId}, plan ${caller.plan.name}, budget ${budget.key}`,
    });
  };
  const count = (caller: RenderCaller, result: Pick<Rendered, 'kind' | 'cache'>, fresh: FreshKind) => {
    if (caller.limit !== 'none') meter?.usage.record(caller.accountId, usageKind(result, fresh));
  };

  return {
    async card(input, caller, opts = {}) {
      allowCard(caller.plan, input);
      await admit(caller, opts);
      const result = await services.templates.resolve(input, {
        ...serviceOptions(opts),
        // The account scopes the cache and the ETag, and bounds its artwork downloads.
        account: caller.accountId,
        ...(opts.draftTheme ? { draftTheme: opts.draftTheme } : {}),
      });
      count(caller, result, 'template');
      return { ...result, contentType: CONTENT_TYPES[result.format] };
    },

    async screenshot(input, caller, opts = {}) {
      allowScreenshot(caller.plan, input);
      const screenshots = services.screenshots;
      if (!screenshots) throw misuse('a screenshot on a command without the screenshot service');
      await admit(caller, opts);
      // The account scopes the cache and takes the capture from its share of the browser.
      const result = await screenshots.resolve(input, {
        ...serviceOptions(opts),
        owner: { accountId: caller.accountId, plan: caller.plan },
      });
      count(caller, result, 'screenshot');
      return { ...result, contentType: SHOT_CONTENT_TYPES[result.format] };
    },
  };
}

type FreshKind = 'template' | 'screenshot';

/** The budget a metered caller spends: a signed URL's own, else the account's. */
function budgetFor(caller: RenderCaller): Budget {
  if (caller.limit === 'signed') return budgetOf({ ...caller, spends: 'signed' });
  return budgetOf({ accountId: caller.accountId, plan: caller.plan, spends: 'account' });
}

function serviceOptions(opts: RenderOptions): { ifNoneMatch?: string; signal?: AbortSignal } {
  return {
    ...(opts.ifNoneMatch !== undefined ? { ifNoneMatch: opts.ifNoneMatch } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
  };
}

/** A wiring mistake, not the caller's: a 500 with the reason in the log. */
function misuse(detail: string): AppError {
  return new AppError('internal', 'Internal server error', { detail });
}

/**
 * The usage a rendered request counts as: the fresh render whenever one was made (a MISS, even
 * when answered 304: `If-None-Match: *` on a miss still captures), else a 304 or a cache hit.
 */
export function usageKind(
  result: Pick<Rendered, 'kind' | 'cache'>,
  fresh: FreshKind,
): Extract<UsageKind, 'not_modified' | 'cache_hit' | 'template' | 'screenshot'> {
  if (result.cache === 'MISS') return fresh;
  if (result.kind === 'not-modified') return 'not_modified';
  return result.cache === 'HIT' ? 'cache_hit' : fresh;
}
