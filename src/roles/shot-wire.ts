/**
 * What travels between an API node and a worker for one screenshot: the validated request (its
 * credentials sealed under the server secret, bound to the task's id), the account and its plan
 * as the API node resolved them, and back the answer's facts (the body travels as bytes beside
 * them) or the error the worker's service threw, so the API node answers exactly as an `all`
 * node would.
 */
import type { Plan } from '../auth/plans.js';
import type { ServerSecrets } from '../auth/secret.js';
import { AppError, type ErrorCode } from '../errors.js';
import type { ShotCredentials } from '../render/screenshot/credentials.js';
import type { ScreenshotRequest } from '../render/screenshot/request.js';
import type { ShotResult } from '../render/screenshot/types.js';

/** A task's payload (jsonb). */
export interface ShotPayload {
  v: 1;
  request: Omit<ScreenshotRequest, 'credentials'>;
  /** `secrets.seal(JSON of the credentials, "remote-shot:<id>")`. */
  credentials?: string;
  owner?: { accountId: string; plan: Plan };
  ifNoneMatch?: string;
}

/** A task's answer (jsonb), the body aside. */
export type ShotMeta =
  | {
      ok: true;
      result: Omit<ShotResult, 'body'>;
      /** The body is in the spill folder under the task's id, not in the row (shot-spill.ts). */
      spilled?: true;
    }
  | { ok: false; error: { code: ErrorCode; message: string; retryAfter?: number; detail?: string } };

const context = (id: string) => `remote-shot:${id}`;

export function encodeRequest(
  id: string,
  req: ScreenshotRequest,
  opts: { ifNoneMatch?: string; owner?: { accountId: string; plan: Plan } },
  secrets: Pick<ServerSecrets, 'seal'>,
): ShotPayload {
  const { credentials, ...request } = req;
  return {
    v: 1,
    request,
    ...(credentials ? { credentials: secrets.seal(JSON.stringify(credentials), context(id)) } : {}),
    ...(opts.owner ? { owner: opts.owner } : {}),
    ...(opts.ifNoneMatch !== undefined ? { ifNoneMatch: opts.ifNoneMatch } : {}),
  };
}

export function decodeRequest(
  id: string,
  payload: ShotPayload,
  secrets: Pick<ServerSecrets, 'unseal'>,
): { req: ScreenshotRequest; owner?: ShotPayload['owner']; ifNoneMatch?: string } {
  if (payload.v !== 1) throw new Error(`unknown remote screenshot payload version ${String(payload.v)}`);
  const credentials = payload.credentials
    ? (JSON.parse(secrets.unseal(payload.credentials, context(id))) as ShotCredentials)
    : undefined;
  return {
    req: { ...payload.request, ...(credentials ? { credentials } : {}) },
    ...(payload.owner ? { owner: payload.owner } : {}),
    ...(payload.ifNoneMatch !== undefined ? { ifNoneMatch: payload.ifNoneMatch } : {}),
  };
}

/** The answer as stored: the facts, and the body (null for a 304 or an error). */
export function encodeResult(result: ShotResult): { meta: ShotMeta; body: Buffer | null } {
  if (result.kind === 'png') {
    const { body, ...rest } = result;
    return { meta: { ok: true, result: rest }, body };
  }
  return { meta: { ok: true, result }, body: null };
}

/** The error as stored: an AppError as is; anything else a 500 whose reason stays in the log. */
export function encodeError(err: unknown): { meta: ShotMeta; body: null } {
  const e =
    err instanceof AppError
      ? err
      : new AppError('internal', 'Internal server error', {
          detail: `worker: ${err instanceof Error ? err.message : String(err)}`,
        });
  return {
    meta: {
      ok: false,
      error: {
        code: e.code,
        message: e.message,
        ...(e.retryAfter !== undefined ? { retryAfter: e.retryAfter } : {}),
        ...(e.detail !== undefined ? { detail: e.detail } : {}),
      },
    },
    body: null,
  };
}

/** The worker's answer on the API node: the result, or its error thrown. */
export function decodeResult(meta: ShotMeta, body: Buffer | null): ShotResult {
  if (!meta.ok) {
    const { code, message, retryAfter, detail } = meta.error;
    throw new AppError(code, message, {
      ...(retryAfter !== undefined ? { retryAfter } : {}),
      ...(detail !== undefined ? { detail: `on a worker: ${detail}` } : {}),
    });
  }
  const r = meta.result;
  if (r.kind === 'png') {
    if (!body) throw new Error('a remote screenshot answer without its body');
    return { ...r, body } as ShotResult;
  }
  return r as ShotResult;
}
