import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isUndocumented } from '../../src/http/openapi.js';
import { startTestApp, type TestApp } from '../helpers/app.js';

type Doc = {
  openapi: string;
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: {
    securitySchemes: Record<string, { type: string; in?: string; name?: string; scheme?: string }>;
  };
};
type Variant = {
  required: string[];
  properties: Record<
    string,
    {
      maxLength?: number;
      enum?: string[];
      pattern?: string;
      minimum?: number;
      maximum?: number;
      type?: string;
      default?: unknown;
    }
  >;
  additionalProperties: boolean;
};
type Operation = {
  operationId: string;
  security?: Array<Record<string, string[]>>;
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: {
    content: Record<string, { schema: { properties: Record<string, { maxLength?: number }> } }>;
  };
  responses: Record<
    string,
    {
      headers?: Record<string, unknown>;
      content?: Record<string, { examples?: Record<string, { value: unknown }> }>;
    }
  >;
};

describe('OpenAPI document', () => {
  let t: TestApp;
  let doc: Doc;
  const routes: Array<{ method: string; url: string }> = [];

  beforeAll(async () => {
    t = await startTestApp(
      {},
      {
        // Every route the app registers (they all live in plugins, which load at ready()).
        beforeReady: (app) =>
          app.addHook('onRoute', (r) => {
            for (const m of [r.method].flat()) routes.push({ method: m, url: r.url });
          }),
      },
    );
    const res = await t.inject({ method: 'GET', url: '/openapi.json', auth: false });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    doc = res.json();
  });
  afterAll(() => t?.close());

  it('is valid OpenAPI 3.1 (checked by an independent validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc) as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe('3.1');
    expect(doc.openapi).toBe('3.1.0');
  });

  it("passes Redocly's recommended rules with no error or warning", async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({
      source: JSON.stringify(doc),
      absoluteRef: 'openapi.json',
      config,
    });
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([]);
  });

  it('describes every registered route except the dashboard and the docs pages', () => {
    expect(routes.length).toBeGreaterThan(20);
    const documented = new Set(
      Object.entries(doc.paths).flatMap(([path, ops]) =>
        Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`),
      ),
    );
    // HEAD is added by Fastify for every GET and answers like it, with headers only.
    const api = routes.filter((r) => r.method !== 'HEAD' && !isUndocumented(r.url));
    // Fastify writes a path parameter `:id`, OpenAPI `{id}`; a trailing wildcard is `{path}`.
    const missing = api
      .map((r) => `${r.method} ${r.url.replace(/:(\w+)/g, '{$1}').replace(/\/\*$/, '/{path}')}`)
      .filter((r) => !documented.has(r));
    expect(missing).toEqual([]);
    for (const op of [
      'POST /render/template',
      'GET /render/template',
      'GET /render/url',
      'GET /healthz',
      'GET /readyz',
      'GET /metrics',
      'GET /openapi.json',
    ]) {
      expect(documented.has(op), op).toBe(true);
    }
    // …and nothing from the dashboard leaks into it.
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/dashboard') || p.startsWith('/docs'))).toEqual(
      [],
    );
  });

  it('names the three ways to authenticate, and the metrics token', () => {
    const s = doc.components.securitySchemes;
    expect(s.apiKeyHeader).toMatchObject({ type: 'apiKey', in: 'header', name: 'x-api-key' });
    expect(s.apiKeyQuery).toMatchObject({ type: 'apiKey', in: 'query', name: 'api_key' });
    expect([s.signedUrlKeyId?.name, s.signedUrlExpiry?.name, s.signedUrlSignature?.name]).toEqual([
      'kid',
      'exp',
      'sig',
    ]);
    expect(s.metricsToken).toMatchObject({ type: 'http', scheme: 'bearer' });
    const get = doc.paths['/render/template']!.get!;
    expect(get.security).toEqual([
      { apiKeyHeader: [] },
      { apiKeyQuery: [] },
      { signedUrlKeyId: [], signedUrlExpiry: [], signedUrlSignature: [] },
    ]);
    // A signed URL is GET only.
    expect(doc.paths['/render/template']!.post!.security).toHaveLength(2);
    // Public operations say so (an empty requirement), rather than leaving it to be guessed.
    for (const path of ['/healthz', '/readyz', '/openapi.json'])
      expect(doc.paths[path]!.get!.security).toEqual([]);
  });

  it('documents the limits, responses, headers and the exact messages the routes answer', async () => {
    const post = doc.paths['/render/template']!.post!;
    const blog = (doc.components as unknown as { schemas: Record<string, Variant> }).schemas[
      'CardFields-blog'
    ]!;
    expect(blog.properties.title!.maxLength).toBe(200);
    expect(blog.properties.subtitle!.maxLength).toBe(300);
    expect(Object.keys(post.responses).sort()).toEqual(
      ['200', '304', '400', '401', '403', '405', '413', '415', '422', '429', '431', '500', '503'].sort(),
    );
    // A 304 has no body; every answer names its request id; errors are never cached.
    expect(post.responses['304']!.content).toBeUndefined();
    for (const [status, response] of Object.entries(post.responses)) {
      expect(Object.keys(response.headers ?? {}), status).toContain('X-Request-Id');
      if (Number(status) >= 400)
        expect(Object.keys(response.headers ?? {}), status).toContain('Cache-Control');
    }
    // HEAD is described for every GET, with its own operation id and no body.
    const head = doc.paths['/render/url']!.head!;
    expect(head.operationId).toBe(`${doc.paths['/render/url']!.get!.operationId}-head`);
    expect(head.responses['200']!.content).toBeUndefined();
    expect(Object.keys(post.responses['200']!.headers!)).toEqual(
      expect.arrayContaining([
        'ETag',
        'Cache-Control',
        'X-Cache',
        'RateLimit',
        'RateLimit-Policy',
        'X-Request-Id',
      ]),
    );
    expect(Object.keys(post.responses['429']!.headers!)).toContain('Retry-After');
    const example = (op: Operation, status: string, name: string) =>
      (op.responses[status]!.content!['application/json']!.examples![name]!.value as { error: string }).error;
    expect(example(post, '401', 'unauthorized')).toBe('Missing or invalid API key');
    expect(example(post, '403', 'template')).toBe('Template not available on your plan');
    expect(example(post, '429', 'rate_limited')).toBe('Rate limit exceeded');

    // The documented 400 examples are what the server really says.
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { template: 'blog', subTitle: 'x', title: 'x' },
    });
    expect(res.json()).toEqual({ error: example(post, '400', 'unknown_field') });
    const shot = doc.paths['/render/url']!.get!;
    expect(Object.keys(shot.responses['200']!.headers!)).toEqual(
      expect.arrayContaining(['Age', 'X-Target-Status']),
    );
    const bad = await t.inject({
      method: 'GET',
      url: '/render/url?url=https://example.com/&viewport=tablet',
    });
    expect(bad.json()).toEqual({ error: example(shot, '400', 'viewport') });
  });

  it('attaching the schemas did not change validation: the hand-written messages still answer', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ template: 'blog' }, 'title is required'],
      [{ template: 'blog', title: 5 }, 'title must be a string'],
      [{ template: 'blgo', title: 'x' }, 'template must be one of: blog, product, saas (got "blgo")'],
      [{ template: 'blog', title: 'x'.repeat(201) }, 'title must be at most 200 characters (got 201)'],
    ];
    for (const [payload, error] of cases) {
      const res = await t.inject({ method: 'POST', url: '/render/template', payload });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error });
    }
    // Without a key it is still 401 first, whatever the schema says about the body.
    const res = await t.inject({
      method: 'POST',
      url: '/render/template',
      payload: { nope: 1 },
      auth: false,
    });
    expect(res.statusCode).toBe(401);
  });

  it('serves the interactive docs from the service itself with a strict CSP', async () => {
    const page = await t.inject({ method: 'GET', url: '/docs', auth: false });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
    const csp = String(page.headers['content-security-policy']);
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toMatch(/https?:/);
    const assets = [...page.body.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(assets.length).toBeGreaterThan(3);
    for (const url of assets) {
      expect(url.startsWith('/docs/')).toBe(true);
      const a = await t.inject({ method: 'GET', url, auth: false });
      expect(a.statusCode, url).toBe(200);
    }
    const json = await t.inject({ method: 'GET', url: '/docs/json', auth: false });
    expect(json.json().openapi).toBe('3.1.0');
  });

  it('can be turned off', async () => {
    const off = await startTestApp({ apiDocs: false });
    try {
      expect((await off.inject({ method: 'GET', url: '/openapi.json', auth: false })).statusCode).toBe(404);
      expect((await off.inject({ method: 'GET', url: '/docs', auth: false })).statusCode).toBe(404);
    } finally {
      await off.close();
    }
  });
});
