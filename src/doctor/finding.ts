/** One finding of `npx cardshot doctor`. */
export interface Finding {
  name: string;
  /** ok; warn: works, but worth fixing; fail: something users will see break. */
  status: 'ok' | 'warn' | 'fail' | 'skip';
  detail: string;
  /** How to fix it (warn and fail only). */
  fix?: string;
}

const MiB = 1024 * 1024;

/** Query parameters that carry credentials: pg and ioredis both read `?password=`. */
const SECRET_PARAM = /pass|pwd|secret|token|key|auth/i;

/**
 * `postgres://user:pass@host/db` → `postgres://user:****@host/db`, and
 * `redis://host?password=x` → `redis://host?password=****`.
 */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    for (const name of [...new Set(u.searchParams.keys())]) {
      if (SECRET_PARAM.test(name)) u.searchParams.set(name, '****');
    }
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

export { firstLine } from '../lib/first-line.js';

/** Bytes as MiB or GiB. */
export function formatMiB(bytes: number): string {
  return bytes >= 1024 * MiB ? `${(bytes / (1024 * MiB)).toFixed(1)} GiB` : `${Math.round(bytes / MiB)} MiB`;
}
