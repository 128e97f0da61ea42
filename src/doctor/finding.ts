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

/** `postgres://user:pass@host/db` → `postgres://user:****@host/db`. */
export function maskUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '****';
    return u.toString();
  } catch {
    return '(not a URL)';
  }
}

/** The first line of an error's message, for one-line findings. */
export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0]!.slice(0, 300);
}

/** Bytes as MiB or GiB. */
export function formatMiB(bytes: number): string {
  return bytes >= 1024 * MiB ? `${(bytes / (1024 * MiB)).toFixed(1)} GiB` : `${Math.round(bytes / MiB)} MiB`;
}
