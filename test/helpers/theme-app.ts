import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { createApp } from '../../src/app.js';
import { createStaticRegistry, TEMPLATES } from '../../src/render/template/registry.js';
import { createTemplateRenderer, type TemplateRenderer } from '../../src/render/template/renderer.js';
import type { TestApp } from './app.js';
import { themedTemplate } from './themed-template.js';

/**
 * A second app on the test app's modules whose template registry also holds the `themed`
 * fixture (the built-ins do not draw themes yet), with its own renderer over that registry.
 * The returned TestApp shares the store, sessions, queue and theme service with `t`.
 */
export async function withThemedTemplates(t: TestApp): Promise<TestApp & { renderer: TemplateRenderer }> {
  const registry = createStaticRegistry([...Object.values(TEMPLATES), themedTemplate]);
  const renderer = await createTemplateRenderer(registry);
  const app: FastifyInstance = createApp({
    config: t.config,
    log: t.app.log as unknown as Logger,
    ...t.modules,
    renderer,
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
