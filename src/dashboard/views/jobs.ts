import type { ItemRecord, JobRecord } from '../../jobs/store/types.js';
import type { Account } from '../../storage/store.js';
import { type Html, html } from '../html.js';
import { alertBox } from './auth.js';
import { count, dateTime, relative, tableDate, timeTag } from './format.js';
import { appPage } from './layout.js';

/** A job with its item counts, as the jobs service gives it. */
export interface JobRow {
  job: JobRecord;
  counts: Record<ItemRecord['status'], number>;
}

const LIVE = new Set(['queued', 'running']);
const STATUS_CLASS: Record<string, string> = {
  queued: 'env',
  running: 'info',
  completed: 'active',
  succeeded: 'active',
  failed: 'error',
  canceled: 'revoked',
};
const cap = (s: string) => `${s[0]!.toUpperCase()}${s.slice(1)}`;

export function statusBadge(status: string): Html {
  return html`<span class="badge ${STATUS_CLASS[status] ?? 'env'}">${cap(status)}</span>`;
}

/**
 * Succeeded and failed items as one bar (SVG attributes, not inline styles: the CSP forbids
 * those), with the numbers beside it for whoever cannot see the colours.
 */
export function progressBar(r: JobRow): Html {
  const total = Math.max(1, r.job.total);
  const ok = (r.counts.succeeded / total) * 100;
  const bad = (r.counts.failed / total) * 100;
  const done = r.counts.succeeded + r.counts.failed;
  return html`<span class="job-progress"><svg class="job-bar" viewBox="0 0 100 8" preserveAspectRatio="none" aria-hidden="true"><rect class="bar-track" width="100" height="8" rx="4"/><rect class="bar-ok" width="${ok.toFixed(2)}" height="8"/><rect class="bar-fail" x="${ok.toFixed(2)}" width="${bad.toFixed(2)}" height="8"/></svg><span class="job-count">${count(done)} / ${count(r.job.total)}${r.counts.failed ? html` · <span class="fail-text">${count(r.counts.failed)} failed</span>` : ''}</span></span>`;
}

function jobRow(r: JobRow, now: number): Html {
  const j = r.job;
  return html`<tr>
  <th scope="row"><a class="key-name mono" href="/dashboard/jobs/${j.id}">${j.id}</a></th>
  <td data-label="Status">${statusBadge(j.status)}</td>
  <td data-label="Progress">${progressBar(r)}</td>
  <td data-label="Created">${timeTag(j.createdAt, relative(j.createdAt, now))}</td>
  <td data-label="Kept until">${timeTag(j.expiresAt, tableDate(j.expiresAt, now))}</td>
</tr>`;
}

/** The Jobs page: the account's jobs, newest first, paged. */
export function jobsPage(opts: {
  account: Account;
  csrf: string;
  rows: JobRow[];
  now: number;
  next: string | null;
  first: boolean;
  notice?: string | null;
}): Html {
  const live = opts.rows.some((r) => LIVE.has(r.job.status));
  return appPage({
    title: 'Jobs',
    section: 'jobs',
    account: opts.account,
    csrf: opts.csrf,
    scripts: live ? ['jobs.js'] : [],
    body: html`<div class="page-head">
  <div>
    <h1>Jobs</h1>
    <p class="subtle">Batches of cards and screenshots rendered in the background with <code>POST /jobs</code> or <code>npx cardshot jobs submit</code>. Their images are kept for your plan's retention, then deleted.</p>
  </div>
</div>
${alertBox('success', opts.notice)}
<section class="card flush" aria-labelledby="jobs-title" ${live ? html`data-live="jobs-list"` : ''} id="jobs-list">
  <div class="card-head padded"><h2 id="jobs-title">${opts.first ? 'Recent jobs' : 'Older jobs'}</h2>${live ? html`<span class="subtle live-note">Updating while jobs run</span>` : ''}</div>
  ${
    opts.rows.length === 0
      ? html`<div class="empty-state"><p>No jobs yet.</p><p>Submit one from a CSV or JSON file: <code>npx cardshot jobs submit cards.csv --wait</code></p></div>`
      : html`<div class="table-wrap"><table class="stacked jobs">
    <thead><tr><th scope="col">Job</th><th scope="col">Status</th><th scope="col">Items done</th><th scope="col">Created</th><th scope="col">Kept until</th></tr></thead>
    <tbody>${opts.rows.map((r) => jobRow(r, opts.now))}</tbody>
  </table></div>`
  }
  ${
    opts.next || !opts.first
      ? html`<div class="pager">${opts.first ? '' : html`<a class="button small" href="/dashboard/jobs">Newest</a>`}${opts.next ? html`<a class="button small" href="/dashboard/jobs?cursor=${opts.next}">Older jobs</a>` : ''}</div>`
      : ''
  }
</section>`,
  });
}

/** What the item table shows of an item: its image link, or why it failed. */
export interface ItemLine {
  index: number;
  status: string;
  kind: string;
  error?: string;
  result: { url: string; contentType: string; bytes: number; width: number; height: number } | null;
}

export const ITEM_FILTERS = ['all', 'failed', 'succeeded', 'queued', 'running', 'canceled'] as const;

function itemRow(i: ItemLine): Html {
  const r = i.result;
  return html`<tr>
  <th scope="row" class="num"><span class="phone-only">Item </span>${i.index}</th>
  <td data-label="Status">${statusBadge(i.status)}</td>
  <td data-label="Kind">${i.kind === 'card' ? 'Card' : 'Screenshot'}</td>
  <td data-label="Result">${
    r
      ? html`<a href="${r.url}" target="_blank" rel="noopener">${r.width}×${r.height} ${r.contentType.replace('image/', '').toUpperCase()}</a> <span class="subtle">${kb(r.bytes)}</span>`
      : i.error
        ? html`<span class="item-error">${i.error}</span>`
        : html`<span class="subtle">–</span>`
  }</td>
</tr>`;
}

function kb(bytes: number): string {
  return bytes < 1_000_000 ? `${(bytes / 1000).toFixed(1)} KB` : `${(bytes / 1_000_000).toFixed(1)} MB`;
}

function facts(r: JobRow): Html {
  const j = r.job;
  const at = (ms: number | null) =>
    ms === null ? html`<span class="subtle">–</span>` : timeTag(ms, dateTime(ms));
  return html`<dl class="facts">
  <div><dt>Created</dt><dd>${at(j.createdAt)}</dd></div>
  <div><dt>Started</dt><dd>${at(j.startedAt)}</dd></div>
  <div><dt>Ended</dt><dd>${at(j.completedAt)}</dd></div>
  <div><dt>Kept until</dt><dd>${at(j.expiresAt)}</dd></div>
  <div><dt>Webhook</dt><dd>${j.webhook ? html`<a href="/dashboard/webhooks/${j.webhook}"><code>${j.webhook}</code></a>` : html`<span class="subtle">Every endpoint subscribed to job events</span>`}</dd></div>
  ${j.metadata ? html`<div><dt>Metadata</dt><dd><code class="wrap">${JSON.stringify(j.metadata)}</code></dd></div>` : ''}
</dl>`;
}

/** One job: its progress, facts, zip download, cancel, and its items with their errors. */
export function jobPage(opts: {
  account: Account;
  csrf: string;
  row: JobRow;
  items: ItemLine[];
  filter: (typeof ITEM_FILTERS)[number];
  next: string | null;
  zipUrl: string;
  notice?: string | null;
}): Html {
  const { row: r } = opts;
  const j = r.job;
  const live = LIVE.has(j.status);
  const tabs = ITEM_FILTERS.map((f) => {
    const n = f === 'all' ? j.total : r.counts[f];
    return html`<a href="/dashboard/jobs/${j.id}${f === 'all' ? '' : `?status=${f}`}" ${f === opts.filter ? html`aria-current="page"` : ''}>${cap(f)} <span class="tab-count">${count(n)}</span></a>`;
  });
  return appPage({
    title: `Job ${j.id}`,
    section: 'jobs',
    account: opts.account,
    csrf: opts.csrf,
    scripts: live ? ['jobs.js'] : [],
    body: html`<p class="crumbs"><a href="/dashboard/jobs">Jobs</a> / <span class="mono">${j.id}</span></p>
<div id="job-live" ${live ? html`data-live="job-live"` : ''}>
<div class="page-head">
  <div>
    <h1 class="job-title">Job <span class="mono">${j.id}</span> ${statusBadge(j.status)}</h1>
    <p class="subtle">${count(j.total)} items · ${count(r.counts.succeeded)} succeeded · ${count(r.counts.failed)} failed${r.counts.canceled ? ` · ${count(r.counts.canceled)} canceled` : ''}${r.counts.queued + r.counts.running ? ` · ${count(r.counts.queued + r.counts.running)} to go` : ''}</p>
  </div>
  <div class="row-actions">
    ${r.counts.succeeded > 0 ? html`<a class="button primary" href="${opts.zipUrl}" download>Download zip</a>` : ''}
    ${live ? html`<a class="button danger-ghost" href="/dashboard/jobs/${j.id}/cancel">Cancel job</a>` : ''}
  </div>
</div>
${alertBox('success', opts.notice)}
<section class="card" aria-label="Progress">
  ${progressBar(r)}
  ${facts(r)}
</section>
<section class="card flush" aria-labelledby="items-title">
  <div class="card-head padded"><h2 id="items-title">Items</h2>${live ? html`<span class="subtle live-note">Updating while the job runs</span>` : ''}</div>
  <nav class="tabs padded" aria-label="Filter items">${tabs}</nav>
  ${
    opts.items.length === 0
      ? html`<p class="empty-state">No ${opts.filter === 'all' ? '' : `${opts.filter} `}items.</p>`
      : html`<div class="table-wrap"><table class="stacked items">
    <thead><tr><th scope="col">#</th><th scope="col">Status</th><th scope="col">Kind</th><th scope="col">Image or error</th></tr></thead>
    <tbody>${opts.items.map(itemRow)}</tbody>
  </table></div>`
  }
  ${opts.next ? html`<div class="pager"><a class="button small" href="/dashboard/jobs/${j.id}?${opts.filter === 'all' ? '' : `status=${opts.filter}&`}after=${opts.next}">Next items</a></div>` : ''}
</section>
</div>`,
  });
}

/** Confirmation before canceling. */
export function cancelJobPage(opts: { account: Account; csrf: string; row: JobRow }): Html {
  const { job: j, counts } = opts.row;
  return appPage({
    title: 'Cancel job',
    section: 'jobs',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<section class="card narrow confirm" aria-labelledby="confirm-title">
  <h1 id="confirm-title">Cancel job <span class="mono">${j.id}</span>?</h1>
  <p>${count(counts.queued)} waiting items will never run; the ${count(counts.running)} running now finish. Images already made stay downloadable until the job expires.</p>
  <form method="post" action="/dashboard/jobs/${j.id}/cancel" class="actions">
    <input type="hidden" name="_csrf" value="${opts.csrf}">
    <a class="button" href="/dashboard/jobs/${j.id}">Keep it running</a>
    <button class="button danger" type="submit">Cancel job</button>
  </form>
</section>`,
  });
}
