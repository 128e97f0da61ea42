import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify';
import { createApp } from '../../src/app.js';
import { loadConfig } from '../../src/config/load.js';
import type { Config, SettingKey } from '../../src/config/schema.js';
import { createLogger } from '../../src/log.js';
import { createModules, type Modules } from '../../src/modules.js';

export interface TestApp {
  app: FastifyInstance;
  modules: Modules;
  config: Config;
  /** Every JSON log line written so far. */
  logs: Array<Record<string, unknown>>;
  /** How many times the real renderer has rendered. */
  renders(): number;
  /**
   * `app.inject` for requests a client would make. Tests use this rather than `app.inject` so
   * that credentials (once routes are protected) are added in one place.
   */
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/**
 * A real app on real modules (real takumi renderer, real caches in a temporary data dir),
 * driven with `app.inject`. The renderer is wrapped only to count calls, which lets tests
 * prove that a 304 or a cache hit did no render.
 */
export async function startTestApp(overrides: Partial<Record<SettingKey, unknown>> = {}): Promise<TestApp> {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'cardshot-test-'));
  const config = loadConfig({ dataDir, logLevel: 'info', nodeEnv: 'test', ...overrides }, {});
  const logs: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n')) if (line.trim()) logs.push(JSON.parse(line));
      cb();
    },
  });
  const log = createLogger(config, sink);
  const modules = await createModules(config, log);
  let count = 0;
  const realRender = modules.renderer.render.bind(modules.renderer);
  modules.renderer.render = async (...args) => {
    count++;
    return realRender(...args);
  };
  // Chromium is launched by the first screenshot request only, so template tests stay fast.
  const app = createApp({ config, log, templates: modules.templates, screenshots: modules.screenshots });
  await app.ready();
  let closing: Promise<void> | undefined;
  return {
    app,
    modules,
    config,
    logs,
    renders: () => count,
    inject: (opts) => app.inject(opts),
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
