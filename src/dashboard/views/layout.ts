import type { Account } from '../../storage/store.js';
import { assetUrl } from '../assets.js';
import { type Html, html } from '../html.js';

export type Section =
  | 'overview'
  | 'keys'
  | 'playground'
  | 'link-preview'
  | 'sites'
  | 'theme'
  | 'jobs'
  | 'webhooks'
  | 'storage';

const NAV: ReadonlyArray<{ id: Section; href: string; label: string; icon: Html }> = [
  {
    id: 'overview',
    href: '/dashboard',
    label: 'Overview',
    icon: html`<svg viewBox="0 0 20 20" aria-hidden="true"><path d="M3 17V9m5 8V3m5 14v-6m4 6H2"/></svg>`,
  },
  {
    id: 'keys',
    href: '/dashboard/keys',
    label: 'API keys',
    icon: html`<svg viewBox="0 0 20 20" aria-hidden="true"><circle cx="6.5" cy="13.5" r="3.5"/><path d="m9 11 8-8m-3 3 2 2m-4 0 2 2"/></svg>`,
  },
  {
    id: 'playground',
    href: '/dashboard/playground',
    label: 'Playground',
    icon: html`<svg viewBox="0 0 20 20" aria-hidden="true"><rect x="2.5" y="4" width="15" height="12" rx="2"/><path d="m2.5 13 4-4 3 3 2-2 6 5"/><circle cx="13" cy="7.5" r="1"/></svg>`,
  },
  {
    id: 'link-preview',
    href: '/dashboard/link-preview',
    label: 'Link preview',
    icon: html`<svg viewBox="0 0 20 20" aria-hidden="true"><rect x="2.5" y="3.5" width="15" height="13" rx="2"/><path d="M2.5 11.5h15M5.5 14h6"/><path d="m8 6.5 2.5 2.5L13 6.5"/></svg>`,
  },
  {
    id: 'sites',
    href: '/dashboard/sites',
    label: 'Sites',
    icon: html`<svg viewBox="0 0 20 20" aria-hidden="true"><circle cx="10" cy="10" r="7.5"/><path d="M2.5 10h15M10 2.5c2.2 2.2 3 4.7 3 7.5s-.8 5.3-3 7.5c-2.2-2.2-3-4.7-3-7.5s.8-5.3 3-7.5Z"/></svg>`,
  },
  {
    id: 'theme',
    href: '/dashboard/theme',
    label: 'Theme',
    icon: html`<svg viewBox="0 0 20 20" aria-hidden="true"><path d="M10 2.5a7.5 7.5 0 1 0 0 15c1 0 1.5-.7 1.5-1.5 0-1.2-1-1.5-1-2.5s.8-1.5 1.8-1.5h1.7a3.5 3.5 0 0 0 3.5-3.5c0-3.3-3.4-6-7.5-6Z"/><circle cx="6.5" cy="9" r="1"/><circle cx="9" cy="6" r="1"/><circle cx="13" cy="6.5" r="1"/></svg>`,
  },
  {
    id: 'jobs',
    href: '/dashboard/jobs',
    label: 'Jobs',
    icon: html`<svg viewBox="0 0 20 20" aria-hidden="true"><rect x="3" y="3" width="14" height="4" rx="1"/><rect x="3" y="9" width="14" height="4" rx="1"/><path d="M3 16h9"/></svg>`,
  },
  {
    id: 'webhooks',
    href: '/dashboard/webhooks',
    label: 'Webhooks',
    icon: html`<svg viewBox="0 0 20 20" aria-hidden="true"><circle cx="6" cy="14" r="2.5"/><circle cx="14" cy="14" r="2.5"/><circle cx="10" cy="5.5" r="2.5"/><path d="m8.8 7.7-2 3.8M11.2 7.7l2 3.8M8.5 14h3"/></svg>`,
  },
  {
    id: 'storage',
    href: '/dashboard/storage',
    label: 'Storage',
    icon: html`<svg viewBox="0 0 20 20" aria-hidden="true"><ellipse cx="10" cy="5" rx="6" ry="2.5"/><path d="M4 5v10c0 1.4 2.7 2.5 6 2.5s6-1.1 6-2.5V5M4 10c0 1.4 2.7 2.5 6 2.5s6-1.1 6-2.5"/></svg>`,
  },
];

/** The <head> shared by every page, with a page's own scripts after the shared one. */
function head(title: string, scripts: readonly string[] = [], styles: readonly string[] = []): Html {
  return html`<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light">
<title>${title} · Cardshot</title>
<link rel="icon" href="${assetUrl('logo.svg')}" type="image/svg+xml">
<link rel="stylesheet" href="${assetUrl('dashboard.css')}">
${styles.map((s) => html`<link rel="stylesheet" href="${assetUrl(s)}">`)}
<script src="${assetUrl('dashboard.js')}" defer></script>
${scripts.map((s) => html`<script src="${assetUrl(s)}" defer></script>`)}
</head>`;
}

/** The logo mark and word. */
export function brand(): Html {
  return html`<span class="brand"><img src="${assetUrl('logo.svg')}" alt="" width="28" height="28"><span>Cardshot</span></span>`;
}

/** A signed-in page: sidebar navigation, account box with sign-out, and the page's content. */
export function appPage(opts: {
  title: string;
  section: Section | null;
  account: Account;
  csrf: string;
  body: Html;
  /** Static scripts only this page needs (assets by name). */
  scripts?: readonly string[];
  /** Style sheets only this page needs (assets by name). */
  styles?: readonly string[];
}): Html {
  const { account } = opts;
  return html`<html lang="en">
${head(opts.title, opts.scripts, opts.styles)}
<body class="app">
<a class="skip-link" href="#main">Skip to content</a>
<div class="shell">
  <header class="sidebar">
    <a class="sidebar-brand" href="/dashboard">${brand()}</a>
    <nav aria-label="Dashboard">
      <ul class="nav">
        ${NAV.map(
          (n) =>
            html`<li><a href="${n.href}" ${n.id === opts.section ? html`aria-current="page"` : ''}>${n.icon}<span>${n.label}</span></a></li>`,
        )}
      </ul>
    </nav>
    <div class="account-box">
      <div class="account-id">
        <span class="avatar" aria-hidden="true">${initials(account.name)}</span>
        <span class="account-text"><strong>${account.name}</strong><span>${account.email}</span></span>
      </div>
      <form method="post" action="/dashboard/sign-out">
        <input type="hidden" name="_csrf" value="${opts.csrf}">
        <button class="button ghost small" type="submit">Sign out</button>
      </form>
    </div>
  </header>
  <main id="main" class="main" tabindex="-1">
    ${opts.body}
  </main>
</div>
</body>
</html>`;
}

/** A page without navigation: sign-in, invite, errors for visitors who are not signed in. */
export function plainPage(opts: { title: string; body: Html }): Html {
  return html`<html lang="en">
${head(opts.title)}
<body class="plain">
<main id="main" class="plain-main">
  <a class="plain-brand" href="/dashboard">${brand()}</a>
  ${opts.body}
  <p class="plain-foot">Cardshot · social cards and screenshots, self-hosted</p>
</main>
</body>
</html>`;
}

function initials(name: string): string {
  const parts = name.trim().split(/\s+/).filter(Boolean);
  const letters = parts.length > 1 ? [parts[0]!, parts[parts.length - 1]!] : parts.slice(0, 1);
  return letters.map((p) => [...p][0]!.toUpperCase()).join('') || '?';
}
