/**
 * How a worker renders an item: through the one render command (plan → rate limit → service →
 * usage, src/render/command.ts) with a `job` caller, so an item spends the account's rate limit
 * as it runs, counts in usage as the render it is, and gets the synchronous render's bytes and
 * ETag (the same services, the same cache).
 */
import sharp from 'sharp';
import type { Plan } from '../auth/plans.js';
import { AppError } from '../errors.js';
import type { RenderCommand } from '../render/command.js';
import type { ParsedItem } from './items.js';

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
   * account's rate limit or its share of the browser is spent (the worker puts the item off);
   * any other AppError is the item's failure in the synchronous route's words.
   */
  render(item: ParsedItem, caller: ItemCaller, signal: AbortSignal): Promise<RenderedItem>;
}

/** Items rendered through `render`. */
export function createItemRenderer(render: Pick<RenderCommand, 'card' | 'screenshot'>): ItemRenderer {
  return {
    async render(item, { accountId, plan }, signal) {
      const caller = { accountId, plan, limit: 'job' as const };
      const result =
        item.kind === 'card'
          ? await render.card(item.request, caller, { signal })
          : await render.screenshot(item.request, caller, { signal });
      // No If-None-Match was sent, so the service answered with the image.
      if (result.kind !== 'png') {
        throw new AppError('internal', 'Internal server error', { detail: 'a job item answered 304' });
      }
      // The header only (sharp reads no pixels for this): a full-page capture's height is its own.
      const meta = await sharp(result.body).metadata();
      return {
        body: result.body,
        etag: result.etag,
        contentType: result.contentType,
        width: meta.width ?? 0,
        height: meta.height ?? 0,
      };
    },
  };
}
