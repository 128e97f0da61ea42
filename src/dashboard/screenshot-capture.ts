/**
 * The screenshot playground's capture with credentials (issue 29 §2): a page behind a sign-in.
 * A signed URL cannot carry headers, cookies or a password (it is logged by proxies and, once
 * published, public), and the browser never holds an API key, so the page posts them here and
 * the server renders through the same command as POST /render/url, for the account and the key
 * chosen in the form: the same plan check, rate limit, queue share, cache scope and usage.
 *
 * The credentials live only in this request: not in the URL, the session, the database or a
 * log line (the body is never logged; the command's errors name fields, never values).
 */
import type { Plan } from '../auth/plans.js';
import type { RenderCaller, RenderCommand, ShotRendered } from '../render/command.js';
import { CREDENTIAL_FIELDS } from '../render/screenshot/credentials.js';
import type { ScreenshotRequest } from '../render/screenshot/request.js';
import { parseScreenshotBody } from '../render/screenshot/request-body.js';
import type { Viewport } from '../render/screenshot/viewports.js';
import type { ApiKeyRecord } from '../storage/store.js';
import { playgroundKey } from './playground.js';
import { readShotInput, shotQueryParams } from './screenshot-playground.js';

/** The capture request as read: what to render and for whom. */
export interface PlaygroundCapture {
  parsed: ScreenshotRequest;
  caller: RenderCaller<'key'>;
  /** The request's options as GET query pairs (no credentials): a JSON answer's image URL. */
  params: Array<readonly [string, string]>;
}

/**
 * Reads the form (the same strings as the signing call) and the credentials in the API's own
 * shapes, and validates both with POST /render/url's parser, so the page shows the API's errors.
 */
export function readPlaygroundCapture(
  body: unknown,
  ctx: {
    accountId: string;
    plan: Plan;
    keys: readonly ApiKeyRecord[];
    now: number;
    viewports: ReadonlyMap<string, Viewport>;
  },
): PlaygroundCapture {
  const source = (body ?? {}) as Record<string, unknown>;
  const input = readShotInput(source);
  const params = shotQueryParams(input);
  const credentials: Record<string, unknown> = {};
  for (const name of CREDENTIAL_FIELDS) if (source[name] !== undefined) credentials[name] = source[name];
  const parsed = parseScreenshotBody({ ...Object.fromEntries(params), ...credentials }, ctx.viewports);
  const key = playgroundKey(ctx.keys, input.key, ctx.now, 'captures');
  // The key's own budget: what the same POST with this key from a server would spend.
  const caller: RenderCaller<'key'> = {
    accountId: ctx.accountId,
    plan: ctx.plan,
    keyId: key.id,
    limit: 'key',
  };
  return { parsed, caller, params };
}

/** Renders it: plan (403), rate limit (429), the capture, usage. */
export function renderPlaygroundCapture(
  render: Pick<RenderCommand, 'screenshot'>,
  capture: PlaygroundCapture,
  signal: AbortSignal,
): Promise<ShotRendered> {
  return render.screenshot(capture.parsed, capture.caller, { signal });
}
