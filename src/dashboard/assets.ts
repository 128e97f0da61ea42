import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AppError } from '../errors.js';

/**
 * The dashboard's static files, read once at start and served from memory with a content
 * hash in their URL, so they can be cached for a year and still change on upgrade. The CSS
 * and script live in the repository beside this file (tsc copies only .ts, so they are found
 * from the package root); the Inter font comes from the installed @fontsource package: no
 * CDN, works offline.
 */
interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.woff2': 'font/woff2',
};

function packageRoot(): string {
  let dir = import.meta.dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('dashboard: cannot find the package root');
    dir = up;
  }
  return dir;
}

function load(): Map<string, Asset> {
  const root = packageRoot();
  const files: Record<string, string> = {
    'dashboard.css': 'src/dashboard/static/dashboard.css',
    'dashboard.js': 'src/dashboard/static/dashboard.js',
    'shot-playground.js': 'src/dashboard/static/shot-playground.js',
    'shot-credentials.js': 'src/dashboard/static/shot-credentials.js',
    'theme.js': 'src/dashboard/static/theme.js',
    'jobs.js': 'src/dashboard/static/jobs.js',
    'link-preview.js': 'src/dashboard/static/link-preview.js',
    'link-preview.css': 'src/dashboard/static/link-preview.css',
    'sites.css': 'src/dashboard/static/sites.css',
    'logo.svg': 'src/dashboard/static/logo.svg',
  };
  for (const weight of [400, 500, 600, 700]) {
    files[`inter-${weight}.woff2`] =
      `node_modules/@fontsource/inter/files/inter-latin-${weight}-normal.woff2`;
  }
  const assets = new Map<string, Asset>();
  for (const [name, rel] of Object.entries(files)) {
    const body = readFileSync(path.join(root, rel));
    const etag = createHash('sha256').update(body).digest('base64url').slice(0, 16);
    assets.set(name, { body, type: TYPES[path.extname(name)]!, etag });
  }
  return assets;
}

let cached: Map<string, Asset> | undefined;

/** The URL of a dashboard asset, versioned by its content. */
export function assetUrl(name: string): string {
  cached ??= load();
  const a = cached.get(name);
  if (!a) throw new Error(`unknown dashboard asset ${name}`);
  return `/dashboard/assets/${name}?v=${a.etag}`;
}

/** GET /dashboard/assets/:name (inside the dashboard's prefix). */
export function registerAssets(scope: FastifyInstance): void {
  cached ??= load();
  const assets = cached;
  scope.get<{ Params: { name: string } }>(
    '/assets/:name',
    { config: { dashboard: 'asset' } },
    async (req, reply) => {
      const a = assets.get(req.params.name);
      if (!a) throw new AppError('not_found', 'No such file');
      reply.header('Cache-Control', 'public, max-age=31536000, immutable');
      reply.header('ETag', `"${a.etag}"`);
      if (req.headers['if-none-match'] === `"${a.etag}"`) return reply.code(304).send();
      return reply.type(a.type).send(a.body);
    },
  );
}
