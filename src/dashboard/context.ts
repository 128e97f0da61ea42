import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Logger } from 'pino';
import type { AccountsModule } from '../accounts/open.js';
import { configuredOrigin, originFor } from '../accounts/origin.js';
import type { DeliveryService } from '../delivery/service.js';
import type { HttpConfig } from '../http/settings.js';
import type { Jobs } from '../jobs/module.js';
import type { Clock } from '../lib/clock.js';
import type { RateLimiter } from '../ratelimit/limiter.js';
import type { RenderCommand } from '../render/command.js';
import type { ScreenshotConfig } from '../render/screenshot/settings.js';
import type { TemplateRegistry } from '../render/template/types.js';
import type { Sites } from '../sites/module.js';
import type { StorageConfig } from '../storage/settings.js';
import type { ThemeService } from '../themes/service.js';
import type { ThemeConfig } from '../themes/settings.js';
import type { UsageRecorder } from '../usage/recorder.js';
import type { WebhookService } from '../webhooks/service.js';
import type { Html } from './html.js';
import type { ActiveSession, Sessions } from './sessions.js';
import type { DashboardConfig } from './settings.js';

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
  /**
   * Its own settings, and the address, body limit, data dir and viewport presets it shares
   * with the server (the screenshot playground offers the API's presets).
   */
  config: DashboardConfig &
    Pick<HttpConfig, 'publicUrl' | 'bodyLimitBytes'> &
    Pick<StorageConfig, 'dataDir' | 'databaseUrl' | 'databaseSchema'> &
    Pick<ScreenshotConfig, 'screenshotViewports'> &
    Pick<ThemeConfig, 'themeLogoMaxBytes'>;
  log: Logger;
  accounts: AccountsModule;
  /** The templates the playground offers, read at request time (they can be reloaded). */
  registry: TemplateRegistry;
  sessions: Sessions;
  limiter: RateLimiter;
  usage: UsageRecorder;
  /** The Theme page: the account's theme. */
  themes: ThemeService;
  /**
   * What the Theme page's preview draws with (a `none` caller: its bound is its own), and the
   * screenshot playground's captures with credentials (its key's budget, like the API's POST).
   */
  render: Pick<RenderCommand, 'card' | 'screenshot'>;
  /** The Jobs pages (null or absent: this server runs no jobs, and the pages say so). */
  jobs?: Jobs | null;
  /** The Webhooks pages: endpoints, secrets shown once, the delivery log. */
  webhooks: WebhookService;
  /** The Link preview page (null or absent: this server does not check links). */
  sites?: Sites | null;
  /** The Storage page (absent: not offered). */
  delivery?: DeliveryService;
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

/**
 * The origin for absolute URLs a page hands out (the playground's og:image URL and curl
 * command): CARDSHOT_PUBLIC_URL, else the address and port this connection really arrived at.
 * Never the Host header: any client chooses it, and it would land in a shell command.
 */
export function baseUrl(req: FastifyRequest, config: Pick<HttpConfig, 'publicUrl'>): string {
  const configured = configuredOrigin(config.publicUrl);
  if (configured !== '') return configured;
  const protocol = req.protocol === 'https' ? 'https' : 'http';
  const { localAddress, localPort } = req.socket ?? {};
  if (localAddress && localPort) return originFor(protocol, localAddress, localPort);
  // No real socket (an injected request): where the server listens, if it does.
  const listening = req.server.server.address();
  if (listening && typeof listening === 'object')
    return originFor(protocol, listening.address, listening.port);
  return originFor(protocol, 'localhost', 0);
}

/** A body field as a trimmed string ('' when absent or repeated). */
export function field(body: unknown, name: string): string {
  const v = (body as Record<string, unknown> | null | undefined)?.[name];
  return typeof v === 'string' ? v.trim() : '';
}
