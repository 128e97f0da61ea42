import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import sharp from 'sharp';
import { createApp } from '../../src/app.js';
import { createRenderCommand } from '../../src/render/command.js';
import { createStaticRegistry } from '../../src/render/template/registry.js';
import { createTemplateRenderer, type TemplateRenderer } from '../../src/render/template/renderer.js';
import { createTemplateService } from '../../src/render/template/service.js';
import type { TestApp } from './app.js';
import { TEMPLATES } from './builtins.js';
import { csrfOf, type DashClient } from './dashboard.js';
import { sharedEngine } from './engine.js';
import { pixelAt } from './png.js';
import { plainTemplate, themedTemplate } from './themed-template.js';

/**
 * A second app on the test app's modules whose template registry also holds the `themed` and
 * `plain` fixtures (one draws the theme, one never does, whatever the built-ins do), with its
 * own renderer, card service and render command over that registry.
 * The returned TestApp shares the store, sessions, queue and theme service with `t`.
 */
export async function withThemedTemplates(t: TestApp): Promise<TestApp & { renderer: TemplateRenderer }> {
  const registry = createStaticRegistry([...Object.values(TEMPLATES), themedTemplate, plainTemplate]);
  const renderer = await createTemplateRenderer(registry, await sharedEngine());
  const { artwork, cache, renderQueue: queue, themes, screenshots, limiter, usage } = t.modules;
  const templates = createTemplateService({ registry, renderer, artwork, cache, queue, themes });
  const render = createRenderCommand({ templates, screenshots, limiter, usage });
  const app: FastifyInstance = createApp({
    config: t.config,
    log: t.app.log as unknown as Logger,
    ...t.modules,
    render,
    registry,
  });
  await app.ready();
  return {
    ...t,
    app,
    renderer,
    close: async () => {
      await app.close();
      await renderer.close();
    },
  };
}

/** A pixel of a PNG as `#RRGGBB`. */
export async function rgbAt(png: Buffer, x: number, y: number): Promise<string> {
  const rgb = (await pixelAt(png, x, y)).slice(0, 3);
  return `#${rgb.map((c) => c.toString(16).padStart(2, '0')).join('')}`.toUpperCase();
}

/** The Theme page's preview call as its script makes it (JSON, CSRF token in a header). */
export async function previewCall(t: TestApp, c: DashClient, body: Record<string, string>, csrf?: string) {
  const token = csrf ?? csrfOf((await c.get('/dashboard/theme')).body);
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/theme/preview',
    cookies: c.cookies,
    headers: { 'content-type': 'application/json', 'x-csrf-token': token },
    payload: JSON.stringify(body),
  });
}

/** The Theme page's logo upload as its script makes it (the file's bytes as the body). */
export async function uploadLogo(t: TestApp, c: DashClient, bytes: Buffer) {
  const token = csrfOf((await c.get('/dashboard/theme')).body);
  return t.app.inject({
    method: 'POST',
    url: '/dashboard/theme/logo',
    cookies: c.cookies,
    headers: { 'content-type': 'application/octet-stream', 'x-csrf-token': token },
    payload: bytes,
  });
}

/** An opaque red square PNG. */
export function redSquare(side: number): Promise<Buffer> {
  return sharp({
    create: { width: side, height: side, channels: 4, background: { r: 255, g: 0, b: 0, alpha: 1 } },
  })
    .png()
    .toBuffer();
}
