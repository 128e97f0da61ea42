import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A small blog on 127.0.0.1 for the sites CLI, client and dashboard tests: three posts and a sitemap. */
export interface SmallBlog {
  url: string;
  hostPort: string;
  /** Page reads by path, to see what a purge or a warm made the server read. */
  reads: Map<string, number>;
  close(): Promise<void>;
}

const POSTS: Record<string, string> = {
  '/blog/post-1': 'Spring is here',
  '/blog/post-2': 'Notes on summer',
  '/about': 'About this blog',
};

/** Starts the blog: each post's head has og:title; /sitemap.xml lists the three; others are 404. */
export async function startSmallBlog(): Promise<SmallBlog> {
  const reads = new Map<string, number>();
  let origin = '';
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://blog').pathname;
    reads.set(path, (reads.get(path) ?? 0) + 1);
    if (path === '/sitemap.xml') {
      const urls = Object.keys(POSTS).map((p) => `<url><loc>${origin}${p}</loc></url>`);
      res.writeHead(200, { 'content-type': 'application/xml' });
      res.end(
        `<?xml version="1.0"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">${urls.join('')}</urlset>`,
      );
      return;
    }
    const title = POSTS[path];
    if (!title) {
      res.writeHead(404, { 'content-type': 'text/html' });
      res.end('<!doctype html><title>Not found</title>');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><meta charset="utf-8"><title>${title} | Small Blog</title><meta property="og:title" content="${title}"><meta property="og:description" content="A post of the small blog"><meta property="og:site_name" content="Small Blog"></head><body><h1>${title}</h1></body></html>`,
    );
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  origin = `http://127.0.0.1:${port}`;
  return {
    url: origin,
    hostPort: `127.0.0.1:${port}`,
    reads,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
