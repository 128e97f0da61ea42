/**
 * What a failed page load means for the client. Chromium reports https refusals and unreachable
 * https hosts with the same net::ERR_TUNNEL_CONNECTION_FAILED, so the egress proxy's own record
 * of what it decided for that host is consulted first.
 */
import { AppError } from '../../../../errors.js';
import type { EgressDecision } from '../../../../net/proxy.js';

/** 400 for a guard refusal, 502 for a host the proxy could not reach; undefined when the proxy let it through. */
export function egressError(
  decision: EgressDecision | undefined,
  failedUrl: string,
  requestedUrl: string,
): AppError | undefined {
  if (!decision || decision.kind === 'allowed') return undefined;
  const where = hostOf(failedUrl);
  if (decision.kind === 'refused') {
    // Generic on purpose: which rule matched would help someone map the network behind us.
    const redirected = stripHash(failedUrl) !== stripHash(requestedUrl);
    return new AppError(
      'bad_request',
      redirected
        ? 'url redirected to an address that is not allowed'
        : 'url points to an address that is not allowed',
      { detail: `${decision.reason}: ${decision.detail} (${failedUrl})` },
    );
  }
  return new AppError('bad_gateway', unreachableMessage(decision.code, where), { detail: decision.detail });
}

function unreachableMessage(code: string, where: { host: string; hostPort: string }): string {
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Could not resolve the host name ${where.host}`;
    case 'ECONNREFUSED':
      return `${where.hostPort} refused the connection`;
    case 'ETIMEDOUT':
      return `Connecting to ${where.hostPort} timed out`;
    case 'ECONNRESET':
      return `${where.hostPort} reset the connection`;
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return `${where.hostPort} is unreachable from this server`;
    default:
      // Node's HTTP parser codes (HPE_…) mean the connection worked but the answer was not HTTP.
      if (code.startsWith('HPE_')) return `${where.hostPort} did not answer with valid HTTP`;
      return `Could not connect to ${where.hostPort} (${code})`;
  }
}

/** A Chromium net::ERR_… code for a navigation the proxy did not explain. */
export function describeNetError(code: string, failedUrl: string): AppError {
  const { host, hostPort } = hostOf(failedUrl);
  const short = code.replace(/^net::/, '');
  if (/^ERR_(CERT_|SSL_|BAD_SSL|TLS)/.test(short)) {
    return new AppError('bad_gateway', `TLS handshake with ${host} failed (${short})`);
  }
  switch (short) {
    case 'ERR_NAME_NOT_RESOLVED':
      // The same answer as a private address: two would map our DNS (issue 26 §3).
      return new AppError('bad_request', 'url points to an address that is not allowed', {
        detail: `${short} for ${failedUrl.slice(0, 200)}`,
      });
    case 'ERR_CONNECTION_REFUSED':
      return new AppError('bad_gateway', `${hostPort} refused the connection`);
    case 'ERR_CONNECTION_TIMED_OUT':
    case 'ERR_TIMED_OUT':
      return new AppError('bad_gateway', `Connecting to ${hostPort} timed out`);
    case 'ERR_UNSAFE_REDIRECT':
      // A redirect to file:, data: or another scheme a web page may not be sent to.
      return new AppError('bad_request', 'url redirected to an address that is not allowed', {
        detail: `${short} from ${failedUrl}`,
      });
    case 'ERR_TOO_MANY_REDIRECTS':
      return new AppError('bad_gateway', `${host} redirected too many times`);
    case 'ERR_EMPTY_RESPONSE':
    case 'ERR_CONNECTION_RESET':
    case 'ERR_CONNECTION_CLOSED':
    case 'ERR_INVALID_RESPONSE':
    case 'ERR_INVALID_HTTP_RESPONSE':
    case 'ERR_RESPONSE_HEADERS_TRUNCATED':
      return new AppError('bad_gateway', `${host} closed the connection without a valid answer (${short})`);
    case 'ERR_ABORTED':
      // A redirect to ftp:, javascript:, mailto: … ends here (Chromium hands such schemes to the
      // system, which a headless browser has none of): refused like file: and data: above.
      if (!/^https?:/i.test(failedUrl)) {
        return new AppError('bad_request', 'url redirected to an address that is not allowed', {
          detail: `${short} for ${failedUrl.slice(0, 200)}`,
        });
      }
      // What is left after refusals: a 204, a download, or a page that cancelled its own load.
      return new AppError('unprocessable', 'url did not answer with a page to render', { detail: failedUrl });
    case 'ERR_PROXY_CONNECTION_FAILED':
    case 'ERR_TUNNEL_CONNECTION_FAILED':
      // The proxy is ours and recorded no decision: a bug on our side, not the target's.
      return new AppError('internal', 'Internal server error', { detail: `${short} for ${failedUrl}` });
    default:
      return new AppError('bad_gateway', `Could not load ${host} (${short})`);
  }
}

function hostOf(url: string): { host: string; hostPort: string } {
  try {
    const u = new URL(url);
    return { host: u.hostname, hostPort: u.host || u.hostname };
  } catch {
    return { host: 'the page', hostPort: 'the page' };
  }
}

function stripHash(url: string): string {
  const i = url.indexOf('#');
  return i < 0 ? url : url.slice(0, i);
}
