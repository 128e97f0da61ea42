/**
 * The one place the jobs area renders an item: plan → rate limit → service → usage, as the
 * synchronous routes do (render-pipeline.ts), through the same template and screenshot services,
 * so an item's bytes and ETag are the synchronous render's. When the shared render command
 * (issue 28 §0, `modules.render`) lands, this file becomes a call to it.
 */
import sharp from 'sharp';
import type { Plan } from '../auth/plans.js';
import { AppError } from '../errors.js';
import { RATE_LIMITED, rateLimitKey } from '../http/access.js';
import { usageKind } from '../http/render-pipeline.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import { CONTENT_TYPES } from '../render/format.js';
import type { ScreenshotService } from '../render/screenshot/types.js';
import type { TemplateService } from '../render/template/service.js';
import type { UsageRecorder } from '../usage/recorder.js';
import { allowItem, type ParsedItem } from './items.js';

/** An item's image, as stored and served. */
export interface RenderedItem {
  body: Buffer;
  etag: string;
  contentType: string;
  width: number;
  height: number;
}

/** Who an item renders for. */
export interface ItemCaller {
  accountId: string;
  plan: Plan;
}

export interface ItemRenderer {
  /**
   * Renders the item: 403 when the plan no longer allows it, 429 (`retryAfter` set) when the
   * account's rate limit or its share of the browser is spent (the worker defers the item),
   * any other AppError is the item's failure in the synchronous route's words.
   */
  render(item: ParsedItem, caller: ItemCaller, signal: AbortSignal): Promise<RenderedItem>;
}

export function createItemRenderer(deps: {
  templates: TemplateService;
  screenshots: ScreenshotService;
  limiter: RateLimiter;
  usage: UsageRecorder;
}): ItemRenderer {
  return {
    async render(item, caller, signal) {
      allowItem(caller.plan, item);
      const b = caller.plan.rateLimit;
      const d = await deps.limiter.consume(
        rateLimitKey(caller.accountId),
        b.requests,
        b.windowSeconds * 1000,
      );
      if (!d.allowed) {
        throw new AppError('rate_limited', RATE_LIMITED, { retryAfter: Math.max(1, d.resetMs / 1000) });
      }
      const result =
        item.kind === 'card'
          ? await deps.templates.resolve(item.request, { signal, account: caller.accountId })
          : await deps.screenshots.resolve(item.request, {
              signal,
              owner: { accountId: caller.accountId, plan: caller.plan },
            });
      deps.usage.record(
        caller.accountId,
        usageKind(result, item.kind === 'card' ? 'template' : 'screenshot'),
      );
      // No If-None-Match was sent, so the service answered with the image.
      if (result.kind !== 'png')
        throw new AppError('internal', 'Internal server error', { detail: '304 without If-None-Match' });
      // The header only (sharp reads no pixels for this): a full-page capture's height is its own.
      const meta = await sharp(result.body).metadata();
      return {
        body: result.body,
        etag: result.etag,
        contentType: CONTENT_TYPES[result.format],
        width: meta.width ?? 0,
        height: meta.height ?? 0,
      };
    },
  };
}
