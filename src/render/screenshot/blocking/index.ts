/**
 * Ad and cookie-banner blocking for `blockAds` and `blockCookieBanners` (issue 17). The capture
 * calls it through this interface only: `attach` after the lease and before navigation (only
 * when an option is on), `beforeCapture` once the page has settled (after `delay`), `detach` in
 * `finally`. The engine itself (filter lists and consent rules from npm packages, built at set-up)
 * is built separately behind the same interface; until it lands, `createBlocker` answers every
 * attach with a 503 naming the option, so no capture pretends to have blocked anything.
 */
import type { Page } from 'playwright-core';
import { AppError } from '../../../errors.js';

export interface BlockingOptions {
  ads: boolean;
  cookieBanners: boolean;
}

export interface PageBlocking {
  beforeCapture(): Promise<void>;
  detach(): Promise<void>;
}

export interface Blocker {
  attach(page: Page, opts: BlockingOptions): Promise<PageBlocking>;
  close(): Promise<void>;
}

/** The blocker the screenshot module uses (the placeholder: it refuses, naming the option). */
export function createBlocker(): Blocker {
  return {
    async attach(_page, opts) {
      const name = opts.ads ? 'blockAds' : 'blockCookieBanners';
      throw new AppError('unavailable', `${name} is not available yet`, {
        detail: 'the blocking engine is not part of this build',
      });
    },
    async close() {},
  };
}
