import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * Fixture pages for how a reader sees a page (issue 29 §3), served by the page server (pages.ts)
 * under /reader/. Each paints the whole viewport green (#00ff00) when it sees what the query
 * says it should, red (#ff0000) otherwise, so a test reads one pixel:
 *
 * - /reader/locale?lang=de-DE: Accept-Language (as the server got it), navigator.language and
 *   Intl's default locale all equal `lang`.
 * - /reader/timezone?tz=Asia/Tokyo: Intl's time zone is `tz`.
 * - /reader/motion: green under prefers-reduced-motion: reduce.
 * - /reader/print: green under print media.
 * - /reader/meta: every fact response=json reads, two of them written by script.
 * - /reader/fresh: what a capture without options sees: no cookie (in the request or the page), no
 *   X-Token header, Accept-Language, navigator.language and Intl en-US, UTC, the viewport's
 *   User-Agent (no `Cardshot-Test-UA`) and no adopted stylesheet.
 * - /reader/csp: red (from /reader/red.css), under `Content-Security-Policy: default-src 'self'; style-src 'self'`
 *   (an inserted <style> is refused there; a test's css turns it green).
 */
const painted = (script: string, head = '') =>
  `<!doctype html><html><head><meta charset="utf-8"><title>reader</title>${head}<style>html,body{margin:0;height:100%;background:#ff0000}</style></head><body>${script ? `<script>${script}</script>` : ''}</body></html>`;

const GREEN_IF = (condition: string) =>
  `if (${condition}) document.documentElement.style.background = document.body.style.background = '#00ff00';`;

/** A page with every fact response=json reads; og:image and twitter:card are written by its script. */
const META = `<!doctype html><html lang="de"><head><meta charset="utf-8"><title>Das Produkt</title>
<meta name="description" content="Alles über das Produkt">
<link rel="canonical" href="/reader/meta?canonical">
<meta name="theme-color" content="#112233">
<link rel="icon" href="/favicon.png" sizes="32x32" type="image/png">
<meta property="og:title" content="Produkt OG">
<script>
document.head.insertAdjacentHTML('beforeend', '<meta property="og:image" content="https://cdn.example/p.png"><meta name="twitter:card" content="summary_large_image">');
</script></head><body style="margin:0;background:#00ff00;height:100vh"></body></html>`;

/** Answers a /reader/ fixture; false when `u` is not one. */
export function readerPage(u: URL, req: IncomingMessage, res: ServerResponse): boolean {
  const send = (body: string, headers: Record<string, string> = {}) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8', ...headers });
    res.end(body);
  };
  const q = (name: string) => JSON.stringify(u.searchParams.get(name) ?? '');
  switch (u.pathname) {
    case '/reader/locale':
      send(
        painted(
          GREEN_IF(
            `${JSON.stringify(req.headers['accept-language'] ?? '')} === ${q('lang')} && navigator.language === ${q('lang')} && Intl.DateTimeFormat().resolvedOptions().locale === ${q('lang')}`,
          ),
        ),
      );
      return true;
    case '/reader/timezone':
      send(painted(GREEN_IF(`Intl.DateTimeFormat().resolvedOptions().timeZone === ${q('tz')}`)));
      return true;
    case '/reader/motion':
      send(
        painted(
          '',
          '<style>@media (prefers-reduced-motion: reduce) { html, body { background:#00ff00 !important } }</style>',
        ),
      );
      return true;
    case '/reader/fresh': {
      const heard = JSON.stringify({
        cookie: req.headers.cookie ?? '',
        token: req.headers['x-token'] ?? '',
        language: req.headers['accept-language'] ?? '',
        agent: req.headers['user-agent'] ?? '',
      });
      send(
        painted(
          `const h = ${heard};\n${GREEN_IF(
            "h.cookie === '' && h.token === '' && h.language === 'en-US' && !h.agent.includes('Cardshot-Test-UA') && document.cookie === '' && navigator.language === 'en-US' && Intl.DateTimeFormat().resolvedOptions().locale === 'en-US' && Intl.DateTimeFormat().resolvedOptions().timeZone === 'UTC' && !navigator.userAgent.includes('Cardshot-Test-UA') && document.adoptedStyleSheets.length === 0",
          )}`,
        ),
      );
      return true;
    }
    case '/reader/print':
      send(painted('', '<style>@media print { html, body { background:#00ff00 !important } }</style>'));
      return true;
    case '/reader/csp':
      // Red from a stylesheet of its own origin: the policy refuses inline styles.
      send(
        '<!doctype html><html><head><meta charset="utf-8"><title>csp</title><link rel="stylesheet" href="/reader/red.css"></head><body></body></html>',
        { 'content-security-policy': "default-src 'self'; style-src 'self'; img-src 'self'" },
      );
      return true;
    case '/reader/meta':
      send(META);
      return true;
    case '/reader/red.css':
      res.writeHead(200, { 'content-type': 'text/css' });
      res.end('html,body{margin:0;height:100%;background:#ff0000}');
      return true;
    default:
      return false;
  }
}
