/** Which headers the egress proxy passes on, each way; see proxy.ts for the proxy itself. */
import type { IncomingHttpHeaders } from 'node:http';

/** Header that marks an answer made by the proxy; stripped from upstream answers so no page can forge it. */
export const EGRESS_HEADER = 'x-cardshot-egress';

// Hop-by-hop headers (RFC 9110 §7.6.1) plus the proxy-only ones: never forwarded either way.
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Request headers to send upstream: hop-by-hop ones, those named in Connection and Host dropped. */
export function forwardHeaders(h: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  // Headers named in Connection are hop-by-hop too.
  const named = new Set(
    String(h.connection ?? '')
      .split(',')
      .map((s) => s.trim().toLowerCase())
      .filter(Boolean),
  );
  for (const [k, v] of Object.entries(h)) {
    if (v === undefined || HOP_BY_HOP.has(k) || named.has(k) || k === 'host') continue;
    out[k] = v;
  }
  return out;
}

/** Upstream headers minus hop-by-hop ones and our own marker, keeping repeats (Set-Cookie). */
export function responseHeaders(raw: string[]): string[] {
  const connection = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if (raw[i]!.toLowerCase() === 'connection') {
      for (const t of raw[i + 1]!.split(',')) connection.add(t.trim().toLowerCase());
    }
  }
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || connection.has(name) || name === EGRESS_HEADER) continue;
    out.push(raw[i]!, raw[i + 1]!);
  }
  return out;
}
