/**
 * How a worker renders an item: through the one render command (plan → rate limit → service →
 * usage, src/render/command.ts) with a `job` caller, so an item spends the account's rate limit
 * as it runs, counts in usage as the render it is, and gets the synchronous render's bytes and
 * ETag (the same services, the same cache).
 */
import sharp from 'sharp';
import type { Plan } from '../auth/plans.js';
import { AppError } from '../errors.js';
import type { CardRendered, RenderCommand } from '../render/command.js';
import type { ParsedItem, SitePageRequest } from './items.js';

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

/** Reads a site's page as `/og` does and draws its card (the sites area; absent: such items fail). */
export interface SitePageRenderer {
  warm(accountId: string, siteId: string, path: string, signal: AbortSignal): Promise<CardRendered>;
}

/** Items rendered through `render` (site pages through `pages`). */
export function createItemRenderer(
  render: Pick<RenderCommand, 'card' | 'screenshot'>,
  pages?: SitePageRenderer,
): ItemRenderer {
  const sitePage = (accountId: string, request: SitePageRequest, signal: AbortSignal) => {
    if (!pages)
      throw new AppError('unavailable', 'Site pages are not served by this node', { retryAfter: 5 });
    return pages.warm(accountId, request.site, request.path, signal);
  };
  return {
    async render(item, { accountId, plan }, signal) {
      const caller = { accountId, plan, limit: 'job' as const };
      const result =
        item.kind === 'card'
          ? await render.card(item.request, caller, { signal })
          : item.kind === 'site-page'
            ? await sitePage(accountId, item.request, signal)
            : await render.screenshot(item.request, caller, { signal });
      // No If-None-Match was sent, so the service answered with the image.
      if (result.kind !== 'png') {
        throw new AppError('internal', 'Internal server error', { detail: 'a job item answered 304' });
      }
      // A full-page capture's height is its own, so the size is read from the image: a PNG's
      // from its header here (a call into sharp cost more main-thread time than the rest of an
      // item's bookkeeping), other formats' through sharp (the header only, no pixels).
      const size = pngSize(result.body) ?? (await sharp(result.body).metadata());
      return {
        body: result.body,
        etag: result.etag,
        contentType: result.contentType,
        width: size.width ?? 0,
        height: size.height ?? 0,
      };
    },
  };
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** A PNG's width and height from its IHDR chunk (always the first); undefined for anything else. */
export function pngSize(body: Buffer): { width: number; height: number } | undefined {
  if (body.length < 24 || !body.subarray(0, 8).equals(PNG_SIGNATURE)) return undefined;
  if (body.toString('latin1', 12, 16) !== 'IHDR') return undefined;
  return { width: body.readUInt32BE(16), height: body.readUInt32BE(20) };
}
