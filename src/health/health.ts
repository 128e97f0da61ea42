/**
 * Readiness: a registry of named checks that /readyz runs together. A module that joins later
 * (a Redis cache tier, …) adds itself with one `register` call. Results are kept for `cacheMs`
 * and concurrent callers share one run, so a load balancer probing every node many times a
 * second costs one run per second, never one per probe.
 */
export interface HealthCheck {
  /**
   * A failing critical check makes the node not ready (503): it cannot serve its main work.
   * A failing non-critical one is reported (`degraded`) while the node keeps serving.
   */
  critical: boolean;
  /** Resolves (optionally with a short detail) when healthy; throws with the reason when not. */
  run(): Promise<string | undefined>;
  /** What to tell the operator when it fails (shown in /readyz). */
  fix?: string;
}

export interface CheckResult {
  status: 'ok' | 'fail';
  critical: boolean;
  /** Milliseconds the check took. */
  ms: number;
  detail?: string;
  fix?: string;
}

export interface Readiness {
  /** ok: every check passed; degraded: only non-critical ones failed; fail: a critical one failed. */
  status: 'ok' | 'degraded' | 'fail';
  /** When this result was computed (ISO 8601). */
  checkedAt: string;
  checks: Record<string, CheckResult>;
}

export interface Health {
  /** Adds (or replaces) a named check. */
  register(name: string, check: HealthCheck): void;
  /** Runs every check (or returns the result of a run younger than `cacheMs`). */
  readiness(): Promise<Readiness>;
}

/** Creates an empty registry; every check is bounded by `timeoutMs`. */
export function createHealth(
  opts: { cacheMs?: number; timeoutMs?: number; now?: () => number } = {},
): Health {
  const cacheMs = opts.cacheMs ?? 1000;
  const timeoutMs = opts.timeoutMs ?? 2000;
  const now = opts.now ?? Date.now;
  const checks = new Map<string, HealthCheck>();
  let last: { at: number; result: Readiness } | undefined;
  let running: Promise<Readiness> | undefined;

  async function runOne(check: HealthCheck): Promise<CheckResult> {
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    });
    try {
      const detail = await Promise.race([check.run(), late]);
      return {
        status: 'ok',
        critical: check.critical,
        ms: round(performance.now() - started),
        ...(detail ? { detail } : {}),
      };
    } catch (err) {
      return {
        status: 'fail',
        critical: check.critical,
        ms: round(performance.now() - started),
        detail: err instanceof Error ? err.message : String(err),
        ...(check.fix ? { fix: check.fix } : {}),
      };
    } finally {
      clearTimeout(timer);
    }
  }

  async function runAll(): Promise<Readiness> {
    const names = [...checks.keys()];
    const results = await Promise.all(names.map((n) => runOne(checks.get(n)!)));
    const out: Record<string, CheckResult> = {};
    names.forEach((n, i) => {
      out[n] = results[i]!;
    });
    const failed = results.filter((r) => r.status === 'fail');
    const status = failed.some((r) => r.critical) ? 'fail' : failed.length > 0 ? 'degraded' : 'ok';
    return { status, checkedAt: new Date(now()).toISOString(), checks: out };
  }

  return {
    register(name, check) {
      checks.set(name, check);
      last = undefined;
    },
    async readiness() {
      const t = now();
      if (last && t - last.at < cacheMs) return last.result;
      running ??= runAll()
        .then((result) => {
          last = { at: now(), result };
          return result;
        })
        .finally(() => {
          running = undefined;
        });
      return running;
    },
  };
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
