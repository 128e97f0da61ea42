import type { Site } from '../../client/sites.js';
import type { Account } from '../../storage/store.js';
import { type Html, html } from '../html.js';
import { alertBox } from './auth.js';
import { relative, seconds, timeTag } from './format.js';
import { appPage } from './layout.js';

/** What a site form had, to show it again with an error. */
export interface SiteForm {
  origins: string;
  template: string;
  theme: string;
  fallbackTitle: string;
  fallbackSubtitle: string;
  refreshSeconds: string;
  render: string;
  name: string;
  error?: string;
}

/** The refresh intervals offered (the API takes any from a minute to 30 days). */
export const REFRESH_CHOICES: ReadonlyArray<number> = [
  3600,
  6 * 3600,
  12 * 3600,
  86_400,
  7 * 86_400,
  30 * 86_400,
];

/** A site's settings as its form shows them. */
export function formOf(site: Site): SiteForm {
  return {
    origins: site.origins.join('\n'),
    template: site.template,
    theme: site.theme,
    fallbackTitle: site.fallback.title,
    fallbackSubtitle: site.fallback.subtitle ?? '',
    refreshSeconds: String(site.refreshSeconds),
    render: site.render,
    name: site.name,
  };
}

const EMPTY: SiteForm = {
  origins: '',
  template: '',
  theme: 'account',
  fallbackTitle: '',
  fallbackSubtitle: '',
  refreshSeconds: '86400',
  render: 'fetch',
  name: '',
};

function siteRow(s: Site, now: number): Html {
  const created = Date.parse(s.createdAt);
  return html`<tr>
  <th scope="row"><a class="key-name" href="/dashboard/sites/${s.id}">${s.name}</a><span class="key-id">${s.id}</span></th>
  <td data-label="Origins"><span class="url-cell">${s.origins.join(', ')}</span></td>
  <td data-label="Template"><code>${s.template}</code>${s.theme === 'none' ? html` <span class="subtle">own look</span>` : ''}</td>
  <td data-label="Refresh">${seconds(s.refreshSeconds)}</td>
  <td data-label="Added">${timeTag(created, relative(created, now))}</td>
  <td><div class="row-actions"><a class="button small" href="/dashboard/sites/${s.id}">Open</a></div></td>
</tr>`;
}

function text(id: string, label: string, value: string, hint: string, attrs: Html | string = ''): Html {
  return html`<div class="field">
      <label for="site-${id}">${label}</label>
      <input id="site-${id}" name="${id}" type="text" value="${value}" aria-describedby="site-${id}-hint" ${attrs}>
      <p class="field-hint" id="site-${id}-hint">${hint}</p>
    </div>`;
}

function select(
  id: string,
  label: string,
  value: string,
  options: Array<[string, string]>,
  hint: string,
): Html {
  return html`<div class="field">
      <label for="site-${id}">${label}</label>
      <select id="site-${id}" name="${id}" aria-describedby="site-${id}-hint">${options.map(([v, l]) => html`<option value="${v}" ${v === value ? html`selected` : ''}>${l}</option>`)}</select>
      <p class="field-hint" id="site-${id}-hint">${hint}</p>
    </div>`;
}

/** The fields of a site, for registering one and for changing one. */
export function siteFields(f: SiteForm, templates: readonly string[]): Html {
  const refresh = REFRESH_CHOICES.map((s): [string, string] => [String(s), seconds(s)]);
  if (!refresh.some(([v]) => v === f.refreshSeconds) && /^\d+$/.test(f.refreshSeconds)) {
    refresh.push([f.refreshSeconds, seconds(Number(f.refreshSeconds))]);
  }
  return html`<div class="field">
      <label for="site-origins">Origins</label>
      <textarea id="site-origins" name="origins" rows="2" required spellcheck="false" placeholder="https://blog.example.com" aria-describedby="site-origins-hint">${f.origins}</textarea>
      <p class="field-hint" id="site-origins-hint">One per line (www and the bare host, say). Pages are read from these only, never from anywhere else; private addresses are refused.</p>
    </div>
    ${select(
      'template',
      'Template',
      f.template,
      templates.map((t) => [t, t]),
      'Every page’s card is drawn with it.',
    )}
    ${select(
      'theme',
      'Theme',
      f.theme,
      [
        ['account', 'Your brand theme'],
        ['none', 'The template’s own look'],
      ],
      'Your colours, font and logo (the Theme page), or none of them.',
    )}
    ${text('fallbackTitle', 'Fallback title', f.fallbackTitle, 'The card of a page that cannot be read (404, 500, too slow, no title). Default: the site’s name.', html`maxlength="200"`)}
    ${text('fallbackSubtitle', 'Fallback subtitle', f.fallbackSubtitle, 'Optional.', html`maxlength="300"`)}
    ${select('refreshSeconds', 'Read pages again after', f.refreshSeconds, refresh, 'Until then a page’s card comes from the cache; purge to see a change at once.')}
    <div class="check">
      <input id="site-render" name="render" type="checkbox" value="browser" ${f.render === 'browser' ? html`checked` : ''} aria-describedby="site-render-hint">
      <label for="site-render">Read pages in a browser</label>
      <p class="field-hint" id="site-render-hint">For pages whose tags are written by script; slower than reading the head.</p>
    </div>
    ${text('name', 'Name', f.name, 'To know it by; default the host.', html`maxlength="100"`)}`;
}

function addForm(csrf: string, form: SiteForm | undefined, templates: readonly string[]): Html {
  const f = form ?? { ...EMPTY, template: templates[0] ?? '' };
  return html`<section class="card" id="add" aria-labelledby="add-title">
  <div class="card-head"><h2 id="add-title">Register a site</h2></div>
  ${f.error ? html`<div class="alert error" role="alert" id="add-error">${f.error}</div>` : ''}
  <form method="post" action="/dashboard/sites" class="stack" novalidate>
    <input type="hidden" name="_csrf" value="${csrf}">
    ${siteFields(f, templates)}
    <div class="form-actions"><button class="button primary" type="submit">Register site</button></div>
  </form>
</section>`;
}

/** The Sites page: the account's sites and the form that registers one. */
export function sitesPage(opts: {
  account: Account;
  csrf: string;
  sites: Site[];
  templates: readonly string[];
  now: number;
  notice?: string | null;
  form?: SiteForm;
}): Html {
  return appPage({
    title: 'Sites',
    section: 'sites',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<div class="page-head">
  <div>
    <h1>Sites</h1>
    <p class="subtle">One <code>og:image</code> tag in a site’s layout gives every page its own card, read from the page’s title and description, with no key in the URL.</p>
  </div>
  <a class="button primary" href="#add">Register site</a>
</div>
${alertBox('success', opts.notice)}
<section class="card flush" aria-labelledby="list-title">
  <div class="card-head padded"><h2 id="list-title">Your sites</h2><span class="subtle">${opts.sites.length}</span></div>
  ${
    opts.sites.length === 0
      ? html`<p class="empty-state">No sites yet. Register one below: its origin and a template are all it needs.</p>`
      : html`<div class="table-wrap"><table class="stacked endpoints">
    <thead><tr><th scope="col">Name</th><th scope="col">Origins</th><th scope="col">Template</th><th scope="col">Refresh</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${opts.sites.map((s) => siteRow(s, opts.now))}</tbody>
  </table></div>`
  }
</section>
${addForm(opts.csrf, opts.form, opts.templates)}`,
  });
}
