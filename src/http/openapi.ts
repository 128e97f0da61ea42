import { readFileSync } from 'node:fs';
import path from 'node:path';
import fastifySwagger from '@fastify/swagger';
import fastifySwaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import type { TemplateRegistry } from '../render/template/types.js';
import { CARDSHOT_VERSION, packageRoot } from '../version.js';
import { finishOpenApiDocument } from './openapi-finish.js';
import { createTemplateDocs } from './openapi-templates.js';
import { ErrorBody, SECURITY_SCHEMES } from './schemas/common.js';
import { Job } from './schemas/jobs.js';
import type { HttpConfig } from './settings.js';

/**
 * The docs pages: swagger-ui's bundle is served from the installed package (no CDN); it needs
 * inline styles (React sets style attributes), data: images (its icons) and blob: images ("Try
 * it out" shows the PNG it fetched from an object URL), nothing else, and nothing from another
 * origin.
 */
export const DOCS_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "connect-src 'self'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

/** Paths the API description leaves out: the dashboard (HTML for people) and the docs' own files. */
export function isUndocumented(url: string): boolean {
  return url.startsWith('/dashboard') || url === '/docs' || url.startsWith('/docs/');
}

const DESCRIPTION = `Cardshot returns PNG images: social cards from built-in templates, and screenshots of public web pages.

Every \`/render/…\` request authenticates in one of three ways: the \`x-api-key\` header, the discouraged \`api_key\` query parameter, or a signed URL (\`kid\`, \`exp\`, \`sig\`; GET only). \`/webhooks…\` takes the key (header or query), never a signed URL. Every error is \`{ "error": "<message>" }\` with \`Cache-Control: no-store\`; every answer carries \`X-Request-Id\`. A path or method this document does not list answers 404 \`{ "error": "No route for GET /x" }\`; a listed path asked with another method answers 405 with \`Allow\`. Every GET also answers HEAD (same headers, no body). The full reference, with every message, is docs/api.md.`;

/**
 * Collects the route schemas into an OpenAPI 3.1 document (GET /openapi.json) and serves the
 * interactive docs (GET /docs). Must be registered before the routes it describes.
 */
export function registerOpenApi(
  app: FastifyInstance,
  config: Pick<HttpConfig, 'apiDocs' | 'publicUrl'>,
  registry: TemplateRegistry,
): void {
  const templateDocs = createTemplateDocs(registry);
  app.addHook('onClose', async () => templateDocs.close());
  app.addSchema(ErrorBody);
  app.addSchema(Job);
  app.register(fastifySwagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Cardshot API',
        version: CARDSHOT_VERSION,
        description: DESCRIPTION,
        license: { name: 'MIT', identifier: 'MIT' },
      },
      servers: [{ url: config.publicUrl !== '' ? config.publicUrl.replace(/\/+$/, '') : '/' }],
      tags: [
        { name: 'Render', description: 'PNG cards and screenshots (API key needed).' },
        {
          name: 'Jobs',
          description: 'Batches of cards and screenshots rendered in the background (API key needed).',
        },
        {
          name: 'Webhooks',
          description: 'Endpoints that receive signed events (Standard Webhooks); API key needed.',
        },
        {
          name: 'Sites',
          description:
            'Sites whose pages get cards at /og/<site id>/<path> (managing them needs an API key; /og needs none).',
        },
        {
          name: 'Fonts',
          description: 'Font files an account uploads for its theme (API key needed).',
        },
        { name: 'Operations', description: 'Health, readiness, metrics and this document (no API key).' },
      ],
      components: { securitySchemes: SECURITY_SCHEMES as never },
    },
    // Shared schemas keep their own names (`Error`) under components.schemas.
    refResolver: {
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
    // GET routes answer HEAD too (Fastify's exposeHeadRoutes); the document says so.
    exposeHeadRoutes: true,
    transformObject: (doc) =>
      finishOpenApiDocument((doc as { openapiObject: Record<string, unknown> }).openapiObject) as never,
    transform: ({ schema, url }) => ({
      schema: (isUndocumented(url) ? { ...(schema ?? {}), hide: true } : schema) as never,
      // A trailing wildcard (`/og/:siteId/*`) is documented as a `path` parameter: OpenAPI has no
      // wildcard, and `{*}` is no parameter name the linters accept.
      url: url.endsWith('/*') ? `${url.slice(0, -1)}:path` : url,
    }),
  });
  if (!config.apiDocs) return;

  // In a plugin so it runs after the collector loaded: the document describes itself too.
  app.register(async (scope) => {
    scope.get(
      '/openapi.json',
      {
        schema: {
          operationId: 'openapi',
          tags: ['Operations'],
          summary: 'This OpenAPI 3.1 document',
          description: 'The API description the interactive docs at /docs are drawn from.',
          response: {
            200: { description: 'OpenAPI 3.1 document.', content: { 'application/json': { schema: {} } } },
          },
        },
        validatorCompiler: () => () => true,
        serializerCompiler: () => (data: unknown) => JSON.stringify(data),
      },
      async (_req, reply) => {
        reply.header('Cache-Control', 'no-cache');
        return reply
          .type('application/json; charset=utf-8')
          .send(JSON.stringify(templateDocs.apply(app.swagger())));
      },
    );
  });

  app.register(fastifySwaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, tryItOutEnabled: false, displayRequestDuration: true },
    theme: { title: 'Cardshot API' },
    // Inlined as a data: URI by swagger-ui-ui, which the CSP's img-src allows.
    logo: {
      type: 'image/svg+xml',
      content: readFileSync(path.join(packageRoot(), 'src/dashboard/static/logo.svg')),
      href: '/docs',
      target: '_self',
    },
    staticCSP: DOCS_CSP,
    // The same card schemas as /openapi.json, from the registry as it is now.
    transformSpecification: (spec) => templateDocs.apply(spec),
    // swagger-ui only reads the document; it never needs the dashboard's cookies or framing.
    uiHooks: {
      onRequest: async (_req, reply) => {
        reply.header('X-Content-Type-Options', 'nosniff');
        reply.header('X-Frame-Options', 'DENY');
        reply.header('Referrer-Policy', 'no-referrer');
      },
    },
  });
}
