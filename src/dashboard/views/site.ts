import type { Site } from '../../client/sites.js';
import type { Account } from '../../storage/store.js';
import { type Html, html } from '../html.js';
import { alertBox } from './auth.js';
import { count, seconds } from './format.js';
import { type JobRow, progressBar, statusBadge } from './jobs.js';
import { appPage } from './layout.js';
import { snippet } from './playground.js';
import { formOf, type SiteForm, siteFields } from './sites.js';

/** One page of the site as the page shows it: its path, tag and card, or why there is none. */
export type PagePreview =
  | { path: string; tag: string; imageSrc: string; error?: undefined }
  | { path: string; error: string };

function previewCard(site: Site, p: PagePreview, warm: JobRow | null): Html {
  return html`<section class="card" aria-labelledby="tag-title" id="tag">
  <div class="card-head"><h2 id="tag-title">The tag for a page</h2></div>
  <form method="get" action="/dashboard/sites/${site.id}#tag" class="site-inline">
    ${warm ? html`<input type="hidden" name="job" value="${warm.job.id}">` : ''}
    <div class="field">
      <label for="site-path">Path or URL of a page</label>
      <input id="site-path" name="path" type="text" required maxlength="2048" spellcheck="false" value="${p.path}" placeholder="/blog/post-1" ${p.error ? html`aria-invalid="true" aria-errormessage="tag-error"` : ''}>
    </div>
    <button class="button primary" type="submit">Show</button>
  </form>
  ${
    p.error !== undefined
      ? html`<div class="alert error" role="alert" id="tag-error">${p.error}</div>`
      : html`<div class="site-preview">
    <div class="preview-frame"><img src="${p.imageSrc}" alt="The card of ${p.path}" width="600" height="315"></div>
    ${snippet('site-tag', 'Paste into the page’s <head>', p.tag, 'The layout writes each page’s own path after the site’s /og/ address; no key is needed.')}
  </div>`
  }
</section>`;
}

function purgeCard(site: Site, csrf: string): Html {
  return html`<section class="card" aria-labelledby="purge-title" id="purge">
  <div class="card-head"><h2 id="purge-title">Purge</h2></div>
  <p class="subtle">Forget cards so the next crawler reads the page again, after you changed its title or image.</p>
  <form method="post" action="/dashboard/sites/${site.id}/purge" class="site-inline">
    <input type="hidden" name="_csrf" value="${csrf}">
    <div class="field">
      <label for="purge-path">Path (empty: every page)</label>
      <input id="purge-path" name="path" type="text" maxlength="2048" spellcheck="false" placeholder="/blog/post-1">
    </div>
    <button class="button" type="submit">Purge</button>
  </form>
</section>`;
}

function warmProgress(row: JobRow): Html {
  const j = row.job;
  const live = j.status === 'queued' || j.status === 'running';
  return html`<div id="warm-live" class="warm-progress" ${live ? html`data-live="warm-live"` : ''}>
  <p><a class="mono" href="/dashboard/jobs/${j.id}">${j.id}</a> ${statusBadge(j.status)} ${live ? html`<span class="subtle live-note">Updating while the job runs</span>` : ''}</p>
  ${progressBar(row)}
  <p class="subtle">${count(row.counts.succeeded)} of ${count(j.total)} pages warmed${row.counts.failed ? ` · ${count(row.counts.failed)} failed (see the job)` : ''}</p>
</div>`;
}

function warmCard(site: Site, csrf: string, warm: JobRow | null, maxPages: number): Html {
  return html`<section class="card" aria-labelledby="warm-title" id="warm">
  <div class="card-head"><h2 id="warm-title">Warm from the sitemap</h2></div>
  <p class="subtle">Reads every page the sitemap lists (at most ${count(maxPages)}) as a background job, so the cards are ready before the crawlers ask.</p>
  ${warm ? warmProgress(warm) : ''}
  <form method="post" action="/dashboard/sites/${site.id}/warm" class="stack">
    <input type="hidden" name="_csrf" value="${csrf}">
    <div class="field">
      <label for="warm-sitemap">Sitemap</label>
      <input id="warm-sitemap" name="sitemap" type="url" maxlength="2048" spellcheck="false" placeholder="${site.origins[0] ?? ''}/sitemap.xml" aria-describedby="warm-sitemap-hint">
      <p class="field-hint" id="warm-sitemap-hint">Default ${site.origins[0] ?? ''}/sitemap.xml; a sitemap index is followed one level.</p>
    </div>
    <div class="field">
      <label for="warm-limit">At most this many pages</label>
      <input id="warm-limit" name="limit" type="number" min="1" max="${maxPages}" placeholder="${maxPages}">
    </div>
    <div class="form-actions"><button class="button primary" type="submit">Warm</button></div>
  </form>
</section>`;
}

/** One site: its tag and a page's card, purge, warm with its progress, its settings and delete. */
export function sitePage(opts: {
  account: Account;
  csrf: string;
  site: Site;
  preview: PagePreview;
  templates: readonly string[];
  warm: JobRow | null;
  warmMaxPages: number;
  notice?: string | null;
  error?: string | null;
  form?: SiteForm;
}): Html {
  const { site } = opts;
  const live = opts.warm && (opts.warm.job.status === 'queued' || opts.warm.job.status === 'running');
  return appPage({
    title: `Site ${site.name}`,
    section: 'sites',
    account: opts.account,
    csrf: opts.csrf,
    scripts: live ? ['jobs.js'] : [],
    styles: ['sites.css'],
    body: html`<p class="crumbs"><a href="/dashboard/sites">Sites</a> / <span class="mono">${site.id}</span></p>
<div class="page-head">
  <div>
    <h1>${site.name}</h1>
    <p class="subtle">${site.origins.join(', ')} · <code>${site.template}</code> · read again after ${seconds(site.refreshSeconds)}${site.render === 'browser' ? ' · in a browser' : ''}</p>
  </div>
  <a class="button danger-ghost" href="/dashboard/sites/${site.id}/delete">Delete site</a>
</div>
${alertBox('success', opts.notice)}
${alertBox('error', opts.error)}
${previewCard(site, opts.preview, opts.warm)}
<div class="site-pair">
${purgeCard(site, opts.csrf)}
${warmCard(site, opts.csrf, opts.warm, opts.warmMaxPages)}
</div>
<section class="card" id="settings" aria-labelledby="settings-title">
  <div class="card-head"><h2 id="settings-title">Settings</h2></div>
  ${opts.form?.error ? html`<div class="alert error" role="alert" id="settings-error">${opts.form.error}</div>` : ''}
  <form method="post" action="/dashboard/sites/${site.id}" class="stack" novalidate>
    <input type="hidden" name="_csrf" value="${opts.csrf}">
    ${siteFields(opts.form ?? formOf(site), opts.templates)}
    <div class="form-actions"><button class="button primary" type="submit">Save changes</button></div>
  </form>
</section>`,
  });
}

/** Confirmation before deleting. */
export function deleteSitePage(opts: { account: Account; csrf: string; site: Site }): Html {
  const { site } = opts;
  return appPage({
    title: 'Delete site',
    section: 'sites',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<section class="card narrow confirm" aria-labelledby="confirm-title">
  <h1 id="confirm-title">Delete ${site.name}?</h1>
  <p>Its <code>/og/${site.id}/…</code> URLs answer 404 from then on: pages that still carry the tag lose their card. Registering the origin again gives a new id.</p>
  <form method="post" action="/dashboard/sites/${site.id}/delete" class="actions">
    <input type="hidden" name="_csrf" value="${opts.csrf}">
    <a class="button" href="/dashboard/sites/${site.id}">Keep it</a>
    <button class="button danger" type="submit">Delete site</button>
  </form>
</section>`,
  });
}
