import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import type { CreatedKey } from '../../src/accounts/manager.js';
import { createApp } from '../../src/app.js';
import { MIN_LN } from '../../src/auth/passwords.js';
import type { Clock } from '../../src/lib/clock.js';
import { createModules, type Modules } from '../../src/modules.js';
import type { UrlGuard } from '../../src/net/url-guard.js';
import type { ThemeSource } from '../../src/render/template/types.js';
import { type Config, loadConfig, type SettingKey } from '../../src/settings.js';
import type { Account, Store } from '../../src/storage/store.js';
import { sharedEngine } from './engine.js';
import { capturedLogger } from './logs.js';

/** `app.inject` options, plus `auth: false` to send no credentials at all. */
export type TestInjectOptions = InjectOptions & { auth?: false };

export interface TestApp {
  app: FastifyInstance;
  modules: Modules;
  config: Config;
  /** Every JSON log line written so far. */
  logs: Array<Record<string, unknown>>;
  /** How many times the real renderer has rendered. */
  renders(): number;
  /** The account every request is made as (pro plan), and its key (with signing secret). */
  account: Account;
  key: CreatedKey;
  /** The real store behind the app (SQLite in the temporary data dir). */
  store: Store;
  /**
   * `app.inject` for requests a client would make, with the test account's `x-api-key` added
   * unless the test sends its own `x-api-key` header or passes `auth: false`.
   */
  inject(opts: TestInjectOptions): Promise<LightMyRequestResponse>;
  /** Listens on a free loopback port, for a real client (a browser); returns its base URL. */
  listen(): Promise<string>;
  close(): Promise<void>;
}

/**
 * A real app on real modules (real takumi renderer, real caches in a temporary data dir),
 * driven with `app.inject`. The renderer is wrapped only to count calls, which lets tests
 * prove that a 304 or a cache hit did no render. Two things are cheaper than in the service,
 * both for start-up time: the takumi engine with its fonts is shared (helpers/engine.ts), and
 * passwords are hashed at scrypt's cheapest accepted cost unless `fullPasswordCost`.
 */
export async function startTestApp(
  overrides: Partial<Record<SettingKey, unknown>> = {},
  opts: {
    clock?: Clock;
    plan?: string;
    beforeReady?: (app: FastifyInstance) => void;
    /** The screenshots' URL guard (a resolver that maps fixture host names to 127.0.0.1). */
    screenshotGuard?: UrlGuard;
    /** The webhook deliveries' URL guard (one that admits the test's receivers). */
    webhookGuard?: UrlGuard;
    /** The delay after failed webhook attempt n (a short back-off for retry tests). */
    webhookBackoff?: (attempt: number) => number;
    /** The storage uploads' URL guard (one that admits the test's S3 server). */
    storageGuard?: UrlGuard;
    /** The delay after failed upload attempt n (a short back-off for retry tests). */
    storageBackoff?: (attempt: number) => number;
    /** Accounts' brand themes for the card routes. */
    themes?: ThemeSource;
    /** The certificate authority the unfurl check trusts (the fixture site's https server). */
    unfurlCa?: string;
    /** The built-in templates' directory (default: the package's templates/). */
    builtinTemplatesDir?: string;
    /**
     * Hash dashboard passwords at the service's own cost (2^15, ~0.1 s each) instead of the
     * cheapest one (2^10): for a test about the cost itself.
     */
    fullPasswordCost?: boolean;
  } = {},
): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-test-'));
  const config = loadConfig({ dataDir, logLevel: 'info', nodeEnv: 'test', ...overrides }, {});
  const { log, lines: logs } = capturedLogger(config);
  const modules = await createModules(config, log, {
    ...(opts.clock ? { clock: opts.clock } : {}),
    ...(opts.screenshotGuard ? { screenshotGuard: opts.screenshotGuard } : {}),
    ...(opts.webhookGuard ? { webhookGuard: opts.webhookGuard } : {}),
    ...(opts.webhookBackoff ? { webhookBackoff: opts.webhookBackoff } : {}),
    ...(opts.storageGuard ? { storageGuard: opts.storageGuard } : {}),
    ...(opts.storageBackoff ? { storageBackoff: opts.storageBackoff } : {}),
    ...(opts.themes ? { themes: opts.themes } : {}),
    ...(opts.unfurlCa ? { unfurlCa: opts.unfurlCa } : {}),
    ...(opts.builtinTemplatesDir ? { builtinTemplatesDir: opts.builtinTemplatesDir } : {}),
    templateEngine: await sharedEngine(),
    ...(opts.fullPasswordCost ? {} : { passwordCost: MIN_LN }),
  });
  const account = await modules.accounts.accounts.createAccount({
    name: 'Test account',
    email: `test-${path.basename(dataDir)}@example.com`,
    plan: opts.plan ?? 'pro',
  });
  const key = await modules.accounts.accounts.createKey({
    accountId: account.id,
    name: 'Test key',
    environment: 'test',
  });
  let count = 0;
  const realRender = modules.renderer.render.bind(modules.renderer);
  modules.renderer.render = async (...args) => {
    count++;
    return realRender(...args);
  };
  // Chromium is launched by the first screenshot request only, so template tests stay fast.
  const app = createApp({ config, log, ...modules, ...(opts.clock ? { clock: opts.clock } : {}) });
  opts.beforeReady?.(app);
  await app.ready();
  let closing: Promise<void> | undefined;
  return {
    app,
    modules,
    config,
    logs,
    renders: () => count,
    account,
    key,
    store: modules.accounts.store,
    inject: ({ auth, ...req }) => {
      const headers = { ...((req.headers ?? {}) as Record<string, string>) };
      const hasKey = Object.keys(headers).some((h) => h.toLowerCase() === 'x-api-key');
      if (auth !== false && !hasKey) headers['x-api-key'] = key.key;
      return app.inject({ ...req, headers }).then((res) => {
        // A 500 is always a bug, and the captured log is the only place its cause is written:
        // print it, so a CI failure that cannot be reproduced still says what happened.
        if (res.statusCode === 500) reportInternalErrors(req.url, logs);
        return res;
      });
    },
    // `this.app`: a wrapper that swaps the app (helpers/theme-app.ts) listens with its own.
    async listen(this: TestApp) {
      await this.app.listen({ host: '127.0.0.1', port: 0 });
      return `http://127.0.0.1:${(this.app.server.address() as AddressInfo).port}`;
    },
    close() {
      // Idempotent: a test that checks shutdown closes early, and afterAll closes again.
      closing ??= (async () => {
        await app.close();
        await modules.close();
        await rm(dataDir, { recursive: true, force: true });
      })();
      return closing;
    },
  };
}

/** Writes the error-level lines of a test app's log to stderr, for a 500 the test did not expect. */
function reportInternalErrors(url: unknown, logs: Array<Record<string, unknown>>): void {
  const errors = logs.filter((l) => typeof l.level === 'number' && l.level >= 50);
  process.stderr.write(`[test app] 500 for ${String(url)}: ${JSON.stringify(errors.slice(-3), null, 2)}\n`);
}
