import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AccountsModule } from '../accounts/open.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../lib/clock.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import type { UsageRecorder } from '../usage/recorder.js';
import type { Html } from './html.js';
import type { ActiveSession, Sessions } from './sessions.js';

/** What a dashboard route may be: an asset, a public page (sign-in), a signed-in page, or a JSON call. */
export type DashboardRouteKind = 'asset' | 'public' | 'page' | 'api';

declare module 'fastify' {
  interface FastifyContextConfig {
    dashboard?: DashboardRouteKind;
  }
  interface FastifyRequest {
    /** Dashboard state of the request (null outside /dashboard). */
    dash: DashboardState | null;
  }
}

/** Who is asking, resolved from the cookies once per dashboard request. */
export interface DashboardState {
  session: ActiveSession | null;
  /** True when the cookie named a session that has just ended (idle or absolute timeout). */
  expired: boolean;
  /** The pre-session id that binds the sign-in form's CSRF token (set on public pages). */
  preId: string | null;
  /** The CSRF token to put in this response's forms. */
  csrf: string;
  /** https as the browser sees it (TLS here, or a trusted proxy's X-Forwarded-Proto, or CARDSHOT_PUBLIC_URL). */
  secure: boolean;
}

/** The modules the dashboard reads and changes. */
export interface DashboardDeps {
  config: Config;
  log: Logger;
  accounts: AccountsModule;
  sessions: Sessions;
  limiter: RateLimiter;
  usage: UsageRecorder;
  clock?: Clock;
}

/** The signed-in session of a `page` or `api` route (the hooks guarantee one). */
export function sessionOf(req: FastifyRequest): ActiveSession {
  const s = req.dash?.session;
  if (!s) throw new Error('dashboard route without a session');
  return s;
}

/** Sends a full HTML page. */
export function sendPage(reply: FastifyReply, page: Html, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(`<!doctype html>\n${page.value}`);
}

/** 303 See Other: after a POST the browser follows with a GET, so a reload never re-submits. */
export function seeOther(reply: FastifyReply, location: string): FastifyReply {
  return reply.code(303).header('Location', location).send();
}

/** The origin pages are served at: CARDSHOT_PUBLIC_URL, else the request's own scheme and host. */
export function baseUrl(req: FastifyRequest, config: Pick<Config, 'publicUrl'>): string {
  if (config.publicUrl !== '') return config.publicUrl.replace(/\/+$/, '');
  return `${req.protocol}://${req.host}`;
}

/** A body field as a trimmed string ('' when absent or repeated). */
export function field(body: unknown, name: string): string {
  const v = (body as Record<string, unknown> | null | undefined)?.[name];
  return typeof v === 'string' ? v.trim() : '';
}
