/**
 * The filtering forward proxy Chromium is forced through: every request a page
 * makes (navigations, redirects, frames, images, scripts, fetch/XHR, WebSocket tunnels) arrives
 * here and is checked by the same URL guard as imageUrl, then connected to exactly the address
 * the guard approved. Chromium itself resolves no names (--host-resolver-rules), so nothing
 * reaches the network any other way. The flags and the pitfalls were verified on Debian's
 * Chromium 156 against 44 ways a page can reach a host (docs/security.md sums them up).
 *
 * Each browser context gets its own session (its own loopback listener), so the decision for a
 * host can be read back after a failed navigation: Chromium discards the body of a refused
 * CONNECT, so an https refusal and an unreachable https host look the same from inside the page.
 *
 * Each session also has its own random credentials, and anything that does not present them gets
 * 407: the listener is on loopback, so without them any local process (another user's, a
 * compromised neighbour) could use it as a way out that bypasses nothing but still bears
 * Cardshot's address, and could read the decisions it records (issue 20 §5). Its browser context
 * gets them once, when it is made (browser.ts warmEgress), and sends them up front after that.
 */
import type { Logger } from 'pino';
import { openSession } from './proxy-session.js';
import type { RefusalReason, UrlGuard } from './url-guard.js';

/** What the proxy did with the last request for one `host:port`. */
export type EgressDecision =
  | { kind: 'allowed'; address: string }
  | { kind: 'refused'; reason: RefusalReason; detail: string }
  | { kind: 'unreachable'; code: string; detail: string };

export interface EgressSession {
  /** `http://127.0.0.1:<port>`: the proxy server to give one browser context. */
  readonly server: string;
  /** The proxy credentials of this session (HTTP Basic); requests without them get 407. */
  readonly username: string;
  readonly password: string;
  /** Value of the `x-cardshot-egress` header on answers the proxy made up itself. */
  readonly token: string;
  /**
   * The Location of the last redirect relayed for `url` (plain http), if any: Chromium may report
   * a redirect to ftp:, mailto: … only as an aborted request for `url`, without the redirect
   * answer (seen under Playwright's request interception).
   */
  redirectFor(url: string): string | undefined;
  /** The latest decision for the URL's `host:port`, if the browser asked for it. */
  decisionFor(url: string | URL): EgressDecision | undefined;
  /** The first requests refused so far (for the log; never sent to clients). */
  readonly refused: ReadonlyArray<{ target: string; reason: RefusalReason; detail: string }>;
  /** Requests (and CONNECTs) that reached this listener, with or without credentials. */
  readonly received: number;
  /** Of those, the ones answered 407 (without the session's credentials). */
  readonly challenged: number;
  /** Bytes relayed so far, both directions, every connection of this session. */
  readonly bytes: number;
  /** True once the session passed its byte budget: every connection was cut, new ones are refused. */
  readonly overBudget: boolean;
  /** Settles when the session passes its byte budget (never, if it does not). */
  readonly budgetSpent: Promise<void>;
  /**
   * Lets nothing more out: every connection is cut and each later request gets the proxy's own
   * answer, while the port stays this session's. For a page whose capture is over, or refused:
   * a closing page can still start a navigation once its DevTools interception is gone (seen
   * with a page moving itself off its site in a loop), and only the proxy then stands between
   * that request and the server.
   */
  seal(): void;
  /** Stops listening and cuts every connection of this session. */
  close(): Promise<void>;
}

export interface EgressProxy {
  /** A new listener with its own decision record (and byte budget, unless overridden). */
  openSession(label: string, opts?: { maxBytes?: number }): Promise<EgressSession>;
  /** Closes every open session. */
  close(): Promise<void>;
}

export interface EgressProxyOptions {
  guard: UrlGuard;
  log?: Logger;
  /** Time allowed to open a TCP connection upstream. */
  connectTimeoutMs?: number;
  /**
   * Bytes one session may relay (request and response bodies and tunnels, both directions).
   * A hostile page could otherwise turn a screenshot into an unbounded download on our link.
   */
  maxBytesPerSession?: number;
}

/** Creates the proxy; sessions listen on 127.0.0.1 ephemeral ports. */
export function createEgressProxy(opts: EgressProxyOptions): EgressProxy {
  const sessions = new Set<EgressSession>();
  const connectTimeoutMs = opts.connectTimeoutMs ?? 10_000;
  return {
    async openSession(label, sessionOpts = {}) {
      const maxBytes = sessionOpts.maxBytes ?? opts.maxBytesPerSession ?? Number.POSITIVE_INFINITY;
      const session = await openSession(opts.guard, label, connectTimeoutMs, maxBytes, opts.log);
      sessions.add(session);
      const close = session.close.bind(session);
      return Object.assign(session, {
        close: async () => {
          sessions.delete(session);
          await close();
        },
      });
    },
    async close() {
      await Promise.all([...sessions].map((s) => s.close()));
    },
  };
}
