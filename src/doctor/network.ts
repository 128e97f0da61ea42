import type { HttpConfig } from '../http/settings.js';
import type { NetConfig } from '../net/settings.js';
import { createUrlGuard, UrlRefusedError } from '../net/url-guard.js';
import type { Finding } from './finding.js';

// Checks of what can reach Cardshot and what Cardshot can reach.

/** Services an allow-list entry must never open up: the cloud metadata endpoint and internal daemons. */
const METADATA_HOSTS = new Set([
  '169.254.169.254',
  '169.254.170.2',
  'metadata.google.internal',
  '[fd00:ec2::254]',
  '100.100.100.200',
]);

/**
 * The host as the guard compares it (WHATWG: `2852039166` → `169.254.169.254`), with an IPv4
 * address written inside IPv6 (`[::ffff:a9fe:a9fe]`, NAT64 `[64:ff9b::a9fe:a9fe]`) turned back
 * into IPv4, so no spelling of a dangerous address slips past the list above.
 */
function canonicalHost(host: string): string {
  let h: string;
  try {
    h = new URL(`http://${host}/`).hostname;
  } catch {
    return host.toLowerCase();
  }
  const m = /^\[(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})\]$/.exec(h);
  if (!m) return h;
  const hi = Number.parseInt(m[1]!, 16);
  const lo = Number.parseInt(m[2]!, 16);
  return [hi >> 8, hi & 255, lo >> 8, lo & 255].join('.');
}
const INTERNAL_PORTS = new Set([22, 23, 25, 2375, 2379, 3306, 5432, 6379, 9200, 11211, 27017]);

/** The guard refuses loopback and the metadata endpoint, and the allow-list opens nothing dangerous. */
export async function checkUrlGuard(
  config: Pick<NetConfig, 'allowPrivateHosts'> & Pick<HttpConfig, 'port' | 'nodeEnv'>,
): Promise<Finding> {
  const name = 'url guard';
  const guard = createUrlGuard({ allowPrivateHosts: config.allowPrivateHosts });
  const mustRefuse = [
    `http://127.0.0.1:${config.port}/`,
    'http://127.0.0.1/',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::1]/',
    'http://10.0.0.1/',
  ];
  const letThrough: string[] = [];
  for (const url of mustRefuse) {
    try {
      await guard.check(url);
      letThrough.push(url);
    } catch (err) {
      if (!(err instanceof UrlRefusedError)) throw err;
    }
  }
  const dangerous = config.allowPrivateHosts.filter((entry) => {
    const m = /^(.*):(\d+)$/.exec(entry);
    const host = canonicalHost(m?.[1] ?? entry);
    const port = Number(m?.[2] ?? 0);
    return (
      METADATA_HOSTS.has(host) ||
      host === '0.0.0.0' ||
      host === '[::]' ||
      INTERNAL_PORTS.has(port) ||
      port === config.port
    );
  });
  const fix =
    'remove those entries from CARDSHOT_ALLOW_PRIVATE_HOSTS: anyone with a key could make Cardshot fetch from them';
  if (dangerous.length > 0 || letThrough.length > 0) {
    return {
      name,
      status: 'fail',
      detail: [
        dangerous.length
          ? `CARDSHOT_ALLOW_PRIVATE_HOSTS opens ${dangerous.join(', ')} (metadata, internal services or Cardshot itself)`
          : '',
        letThrough.length ? `lets ${letThrough.join(', ')} through` : '',
      ]
        .filter(Boolean)
        .join('; '),
      fix,
    };
  }
  if (config.allowPrivateHosts.length > 0 && config.nodeEnv === 'production') {
    return {
      name,
      status: 'warn',
      detail: `refuses loopback, private and metadata addresses, but CARDSHOT_ALLOW_PRIVATE_HOSTS lets ${config.allowPrivateHosts.join(', ')} through in production`,
      fix: 'keep the allow-list for development and tests; serve images from public addresses in production',
    };
  }
  return {
    name,
    status: 'ok',
    detail: `refuses loopback, private and metadata addresses${config.allowPrivateHosts.length ? ` (allowed on purpose: ${config.allowPrivateHosts.join(', ')})` : ''}`,
  };
}

/** What is exposed to whoever reaches the port. */
export function checkExposure(
  config: Pick<HttpConfig, 'host' | 'metricsToken' | 'nodeEnv' | 'publicUrl'>,
): Finding {
  const open = config.host === '0.0.0.0' || config.host === '::';
  const notes = [
    config.metricsToken === ''
      ? '/metrics is off (no CARDSHOT_METRICS_TOKEN)'
      : '/metrics needs the bearer token',
    open ? `listening on all interfaces (${config.host})` : `listening on ${config.host} only`,
  ];
  if (config.nodeEnv === 'production' && open && config.publicUrl === '') {
    return {
      name: 'exposure',
      status: 'warn',
      detail: `${notes.join('; ')}; CARDSHOT_PUBLIC_URL is empty`,
      fix: 'set CARDSHOT_PUBLIC_URL to the https address users reach (invite links, Secure cookies) and terminate TLS in front',
    };
  }
  return { name: 'exposure', status: 'ok', detail: notes.join('; ') };
}
