import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import type { Logger } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../src/app.js';
import type { TemplateDefinition, TemplateRegistry } from '../../src/render/template/types.js';
import { startTestApp, type TestApp } from '../helpers/app.js';
import { TEMPLATES } from '../helpers/builtins.js';

/** A registry whose templates a test swaps, telling listeners as a reload does. */
function swappableRegistry(initial: TemplateDefinition[]) {
  let list = initial;
  const listeners = new Set<() => void>();
  const registry: TemplateRegistry = {
    get: (name) => list.find((d) => d.name === name),
    names: () => list.map((d) => d.name),
    list: () => list,
    onChange: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    close: async () => {},
  };
  const swap = (next: TemplateDefinition[]) => {
    list = next;
    for (const l of listeners) l();
  };
  return { registry, swap };
}

const event: TemplateDefinition = {
  ...TEMPLATES.product,
  name: 'event',
  description: 'Meetup card with the venue photo.',
  fields: {
    headline: { type: 'text', required: true, maxLength: 80, description: 'The talk' },
    accent: { type: 'color', default: '#6366F1', description: 'Band colour' },
    seats: { type: 'number', min: 1, max: 500, integer: true },
    layout: { type: 'choice', options: ['left', 'center'], default: 'left' },
  },
  sizes: ['og', 'square', 'story'],
  uses: { brand: false, artwork: true, theme: true },
  source: 'templates/event.tsx',
};
const builtins = Object.values(TEMPLATES);

type Schema = Record<string, unknown> & { properties?: Record<string, Record<string, unknown>> };
type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        parameters: Array<Record<string, unknown>>;
        requestBody: {
          content: Record<string, { schema: Schema; examples: Record<string, { value: unknown }> }>;
        };
      }
    >
  >;
  components: { schemas: Record<string, Schema> };
};

let t: TestApp;
let app: FastifyInstance;
const { registry, swap } = swappableRegistry([...builtins, event]);
const docAt = async (url: string) => (await app.inject({ method: 'GET', url })).json() as Doc;

beforeAll(async () => {
  t = await startTestApp();
  app = createApp({ config: t.config, log: t.app.log as unknown as Logger, ...t.modules, registry });
  await app.ready();
});
afterAll(async () => {
  await app?.close();
  await t?.close();
});

describe('the OpenAPI card schemas follow the template registry', () => {
  it('POST: one variant per template, discriminated by template, with its own fields and limits', async () => {
    const doc = await docAt('/openapi.json');
    const body = doc.paths['/render/template']!.post!.requestBody.content['application/json']!;
    const ref = (n: string) => `#/components/schemas/CardFields-${n}`;
    expect(body.schema).toEqual({
      oneOf: ['blog', 'product', 'saas', 'event'].map((n) => ({ $ref: ref(n) })),
      discriminator: {
        propertyName: 'template',
        mapping: Object.fromEntries(['blog', 'product', 'saas', 'event'].map((n) => [n, ref(n)])),
      },
    });
    const ev = doc.components.schemas['CardFields-event']!;
    expect(ev.required).toEqual(['template', 'headline']);
    expect(ev.additionalProperties).toBe(false);
    const p = ev.properties!;
    expect(Object.keys(p)).toEqual([
      'template',
      'headline',
      'accent',
      'seats',
      'layout',
      'imageUrl',
      'size',
      'theme',
      'format',
      'quality',
    ]);
    expect(p.template).toMatchObject({ type: 'string', enum: ['event'] });
    expect(p.headline).toEqual({ type: 'string', maxLength: 80, description: 'The talk' });
    expect(p.accent).toMatchObject({
      type: 'string',
      pattern: '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$',
      default: '#6366F1',
    });
    expect(p.seats).toEqual({ type: 'integer', minimum: 1, maximum: 500 });
    expect(p.layout).toEqual({ type: 'string', enum: ['left', 'center'], default: 'left' });
    expect(p.size).toMatchObject({ enum: ['og', 'square', 'story'], default: 'og' });
    expect(p.theme).toMatchObject({ enum: ['none'] });
    // brand and imageUrl only where the template draws them.
    const blog = doc.components.schemas['CardFields-blog']!.properties!;
    expect(Object.keys(blog)).toEqual([
      'template',
      'title',
      'subtitle',
      'brand',
      'size',
      'theme',
      'format',
      'quality',
    ]);
    expect(blog.size).toMatchObject({ enum: ['og', 'twitter', 'square', 'linkedin', 'story'] });
    expect(blog.theme).toMatchObject({ enum: ['none'] });
    expect(Object.keys(doc.components.schemas['CardFields-saas']!.properties!)).toContain('imageUrl');
    // An example per template, which the linter checks against its variant.
    expect(body.examples.event!.value).toEqual({
      template: 'event',
      headline: 'How we cut our build time in half',
      accent: '#6366F1',
      seats: 1,
      layout: 'left',
    });
  });

  it('GET: every field once, saying which templates take it; size lists every size offered', async () => {
    const doc = await docAt('/openapi.json');
    const params = doc.paths['/render/template']!.get!.parameters;
    const query = params.filter((p) => p.in === 'query');
    expect(query.map((p) => p.name)).toEqual([
      'template',
      'title',
      'subtitle',
      'headline',
      'accent',
      'seats',
      'layout',
      'brand',
      'imageUrl',
      'theme',
      'size',
      'format',
      'quality',
      'v',
    ]);
    const by = Object.fromEntries(query.map((p) => [p.name as string, p]));
    expect(by.template!.schema).toEqual({ type: 'string', enum: ['blog', 'product', 'saas', 'event'] });
    // title is no longer required of every card: event has none.
    expect(by.title).toMatchObject({
      required: false,
      description: 'Main headline drawn on the image. Taken by blog, product, saas.',
    });
    expect(by.seats!.schema).toEqual({ type: 'integer', minimum: 1, maximum: 500 });
    expect(by.imageUrl!.description).toMatch(/Drawn by product, saas, event\.$/);
    expect(by.size!.schema).toEqual({
      type: 'string',
      enum: ['og', 'twitter', 'square', 'linkedin', 'story'],
    });
    expect(params.some((p) => p.in === 'header' && p.name === 'if-none-match')).toBe(true);
    // HEAD is documented with the same parameters.
    expect(doc.paths['/render/template']!.head!.parameters.map((p) => p.name)).toEqual(
      params.map((p) => p.name),
    );
  });

  it('is still valid OpenAPI 3.1 and lint-clean with a custom template', async () => {
    const doc = await docAt('/openapi.json');
    const result = await new Validator().validate(structuredClone(doc) as never);
    expect(result.errors ?? []).toEqual([]);
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: 'openapi.json',
      config: await createConfig({ extends: ['recommended'] }),
    });
    expect(problems.map((p) => `${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('is rebuilt when the registry changes, in /openapi.json and the interactive docs alike', async () => {
    expect(Object.keys((await docAt('/openapi.json')).components.schemas)).toContain('CardFields-event');
    swap(builtins);
    const after = await docAt('/openapi.json');
    expect(Object.keys(after.components.schemas)).not.toContain('CardFields-event');
    const refs = (
      after.paths['/render/template']!.post!.requestBody.content['application/json']!.schema
        .oneOf as unknown[]
    ).length;
    expect(refs).toBe(3);
    const ui = await docAt('/docs/json');
    expect(ui.paths['/render/template']!.post!.requestBody).toEqual(
      after.paths['/render/template']!.post!.requestBody,
    );
    swap([...builtins, event]);
    expect(Object.keys((await docAt('/docs/json')).components.schemas)).toContain('CardFields-event');
  });
});
