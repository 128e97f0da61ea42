import type { Account } from '../../storage/store.js';
import type { DeliveryView, EndpointView } from '../../webhooks/views.js';
import { type Html, html } from '../html.js';
import { alertBox } from './auth.js';
import { dateTime, relative, timeTag } from './format.js';
import { secretRow } from './keys.js';
import { appPage } from './layout.js';

/** The events a form offers, with what each one means. */
export const EVENT_CHOICES = [
  { id: 'job.completed', hint: 'a job ended with at least one image' },
  { id: 'job.failed', hint: 'a job ended with no image' },
  { id: 'job.canceled', hint: 'a job was canceled' },
  { id: 'render.succeeded', hint: 'one item of a job succeeded' },
  { id: 'render.failed', hint: 'one item of a job failed' },
  { id: 'delivery.succeeded', hint: 'one item was stored in your bucket' },
  { id: 'delivery.failed', hint: 'one item could not be stored in your bucket' },
] as const;
const DEFAULTS = new Set(['job.completed', 'job.failed', 'job.canceled']);

/** What the add form had, to show it again with an error. */
export interface EndpointForm {
  url: string;
  events: string[];
  error?: string;
}

const at = (iso: string, now: number) => timeTag(Date.parse(iso), relative(Date.parse(iso), now));

function endpointBadge(e: EndpointView): Html {
  return e.status === 'active'
    ? html`<span class="badge active">Active</span>`
    : html`<span class="badge revoked" title="${e.disabledReason ?? ''}">Disabled</span>`;
}

function eventChips(events: readonly string[]): Html {
  return html`<span class="chips">${events.map((e) => html`<span class="badge env">${e}</span>`)}</span>`;
}

/** The one-time panel with an endpoint's secret, after it is added or rotated. */
function secretPanel(e: EndpointView & { secret: string }, rotated: boolean): Html {
  return html`<section class="card reveal" aria-labelledby="reveal-title" tabindex="-1" id="new-secret-panel">
  <div class="card-head"><h2 id="reveal-title">${rotated ? 'New signing secret' : 'Endpoint added'}: copy the secret now</h2></div>
  <p class="reveal-warning"><strong>This is the only time the secret is shown.</strong> Your receiver verifies every delivery with it (Standard Webhooks); if you lose it, rotate it.</p>
  ${secretRow('Signing secret', 'new-secret', e.secret, 'Give it to your receiver, for example as WEBHOOK_SECRET.')}
  <p class="key-meta">Endpoint <code>${e.id}</code> · ${e.url}</p>
  ${rotated && e.previousSecretExpiresAt ? alertBox('info', `The old secret keeps signing beside the new one until ${dateTime(Date.parse(e.previousSecretExpiresAt))}; deploy the new one before then.`) : ''}
  <div class="actions"><a class="button" href="/dashboard/webhooks/${e.id}">I have saved it</a></div>
</section>`;
}

function endpointRow(e: EndpointView, now: number): Html {
  return html`<tr class="${e.status === 'active' ? '' : 'inactive'}">
  <th scope="row"><a class="key-name url-cell" href="/dashboard/webhooks/${e.id}">${e.url}</a><span class="key-id">${e.id}</span></th>
  <td data-label="Events">${eventChips(e.events)}</td>
  <td data-label="Status">${endpointBadge(e)}</td>
  <td data-label="Added">${at(e.createdAt, now)}</td>
  <td><div class="row-actions"><a class="button small" href="/dashboard/webhooks/${e.id}">Deliveries</a></div></td>
</tr>`;
}

function addForm(csrf: string, once: string, form: EndpointForm | undefined): Html {
  const chosen = new Set(form?.events ?? DEFAULTS);
  return html`<section class="card" id="add" aria-labelledby="add-title">
  <div class="card-head"><h2 id="add-title">Add an endpoint</h2></div>
  ${form?.error ? html`<div class="alert error" role="alert" id="add-error">${form.error}</div>` : ''}
  <form method="post" action="/dashboard/webhooks" class="stack" novalidate>
    <input type="hidden" name="_csrf" value="${csrf}">
    <input type="hidden" name="once" value="${once}">
    <div class="field">
      <label for="hook-url">URL</label>
      <input id="hook-url" name="url" type="url" required maxlength="2048" placeholder="https://example.com/hooks/cardshot" value="${form?.url ?? ''}" aria-describedby="hook-url-hint" ${form?.error ? html`aria-invalid="true" aria-errormessage="add-error"` : ''}>
      <p class="field-hint" id="hook-url-hint">A public https:// address. Cardshot POSTs signed JSON to it; only a 2xx answer counts as delivered.</p>
    </div>
    <fieldset class="field event-choices">
      <legend>Events</legend>
      ${EVENT_CHOICES.map(
        (c) =>
          html`<label class="check"><input type="checkbox" name="ev-${c.id}" value="on" ${chosen.has(c.id) ? html`checked` : ''}><span><code>${c.id}</code> <span class="subtle">${c.hint}</span></span></label>`,
      )}
    </fieldset>
    <div class="form-actions"><button class="button primary" type="submit">Add endpoint</button></div>
  </form>
</section>`;
}

/** The Webhooks page: endpoints, the add form, and a secret shown once. */
export function webhooksPage(opts: {
  account: Account;
  csrf: string;
  once: string;
  endpoints: EndpointView[];
  now: number;
  created?: EndpointView & { secret: string };
  notice?: string | null;
  form?: EndpointForm;
}): Html {
  return appPage({
    title: 'Webhooks',
    section: 'webhooks',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<div class="page-head">
  <div>
    <h1>Webhooks</h1>
    <p class="subtle">Cardshot tells these endpoints when a job ends, signed the Standard Webhooks way (<code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>). Failed deliveries are retried for 24 hours.</p>
  </div>
  <a class="button primary" href="#add">Add endpoint</a>
</div>
${opts.created ? secretPanel(opts.created, false) : ''}
${alertBox('success', opts.notice)}
<section class="card flush" aria-labelledby="list-title">
  <div class="card-head padded"><h2 id="list-title">Endpoints</h2><span class="subtle">${opts.endpoints.filter((e) => e.status === 'active').length} active</span></div>
  ${
    opts.endpoints.length === 0
      ? html`<p class="empty-state">No endpoints yet. Add one below to hear when your jobs end.</p>`
      : html`<div class="table-wrap"><table class="stacked endpoints">
    <thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col">Added</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${opts.endpoints.map((e) => endpointRow(e, opts.now))}</tbody>
  </table></div>`
  }
</section>
${addForm(opts.csrf, opts.once, opts.form)}`,
  });
}

function attemptLines(d: DeliveryView): Html {
  if (d.attempts.length === 0) return html`<p class="subtle">Not attempted yet.</p>`;
  return html`<ol class="attempts">${d.attempts.map(
    (a) =>
      html`<li><strong>#${a.attempt}</strong> ${timeTag(Date.parse(a.at), dateTime(Date.parse(a.at)))} · ${a.status === null ? html`<span class="fail-text">${a.error ?? 'no answer'}</span>` : html`HTTP ${a.status}`} · ${a.durationMs} ms${a.response ? html`<pre class="answer">${a.response}</pre>` : ''}</li>`,
  )}</ol>`;
}

const DELIVERY_BADGES: Record<DeliveryView['status'], Html> = {
  pending: html`<span class="badge warn">Pending</span>`,
  succeeded: html`<span class="badge active">Delivered</span>`,
  failed: html`<span class="badge error">Failed</span>`,
};

function deliveryBadge(status: DeliveryView['status']): Html {
  return DELIVERY_BADGES[status];
}

function deliveryRow(e: EndpointView, d: DeliveryView, csrf: string, now: number): Html {
  const last = d.attempts.at(-1);
  const answer =
    last === undefined ? '–' : last.status === null ? (last.error ?? 'no answer') : `HTTP ${last.status}`;
  return html`<tr>
  <th scope="row"><span class="mono">${d.id}</span><span class="key-id">${d.type}</span></th>
  <td data-label="Status">${deliveryBadge(d.status)}</td>
  <td data-label="Answer">${answer}<details><summary>${d.attempts.length} attempt${d.attempts.length === 1 ? '' : 's'}</summary>${attemptLines(d)}</details></td>
  <td data-label="Sent">${at(d.createdAt, now)}${d.nextAttemptAt ? html`<span class="key-id">next try ${at(d.nextAttemptAt, now)}</span>` : ''}</td>
  <td>${
    e.status === 'active'
      ? html`<form method="post" action="/dashboard/webhooks/${e.id}/deliveries/${d.id}/redeliver"><input type="hidden" name="_csrf" value="${csrf}"><button class="button small" type="submit">Redeliver</button></form>`
      : ''
  }</td>
</tr>`;
}

/** One endpoint: its facts, test, rotate, delete, and its delivery log with every attempt. */
export function webhookPage(opts: {
  account: Account;
  csrf: string;
  endpoint: EndpointView;
  deliveries: DeliveryView[];
  next: string | null;
  now: number;
  rotated?: EndpointView & { secret: string };
  notice?: string | null;
}): Html {
  const e = opts.endpoint;
  const active = e.status === 'active';
  return appPage({
    title: 'Webhook endpoint',
    section: 'webhooks',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<p class="crumbs"><a href="/dashboard/webhooks">Webhooks</a> / <span class="mono">${e.id}</span></p>
<div class="page-head">
  <div>
    <h1 class="job-title url-cell">${e.url} ${endpointBadge(e)}</h1>
    <p class="subtle">${eventChips(e.events)}</p>
  </div>
  <div class="row-actions">
    ${active ? html`<form method="post" action="/dashboard/webhooks/${e.id}/test"><input type="hidden" name="_csrf" value="${opts.csrf}"><button class="button primary" type="submit">Send test event</button></form>` : ''}
    <a class="button" href="/dashboard/webhooks/${e.id}/rotate">Rotate secret</a>
    <a class="button danger-ghost" href="/dashboard/webhooks/${e.id}/delete">Delete</a>
  </div>
</div>
${opts.rotated ? secretPanel(opts.rotated, true) : ''}
${alertBox('success', opts.notice)}
${active ? '' : alertBox('error', `Disabled ${e.disabledAt ? dateTime(Date.parse(e.disabledAt)) : ''}: ${e.disabledReason ?? 'the receiver answered 410 Gone'}. Nothing is sent to it; add it again to resume.`)}
${e.previousSecretExpiresAt && !opts.rotated ? alertBox('info', `A rotated secret still signs beside the current one until ${dateTime(Date.parse(e.previousSecretExpiresAt))}.`) : ''}
<section class="card flush" aria-labelledby="log-title">
  <div class="card-head padded"><h2 id="log-title">Delivery log</h2><span class="subtle">Newest first; the first 1 KB of each answer</span></div>
  ${
    opts.deliveries.length === 0
      ? html`<p class="empty-state">No deliveries yet. Send a test event to check your receiver.</p>`
      : html`<div class="table-wrap"><table class="stacked deliveries">
    <thead><tr><th scope="col">Message</th><th scope="col">Status</th><th scope="col">Last answer</th><th scope="col">Sent</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${opts.deliveries.map((d) => deliveryRow(e, d, opts.csrf, opts.now))}</tbody>
  </table></div>`
  }
  ${opts.next ? html`<div class="pager"><a class="button small" href="/dashboard/webhooks/${e.id}?cursor=${opts.next}">Older deliveries</a></div>` : ''}
</section>`,
  });
}

/** Confirmation before rotating (the new secret is shown once, on the next page) or deleting. */
export function confirmEndpointPage(opts: {
  account: Account;
  csrf: string;
  endpoint: EndpointView;
  action: 'rotate' | 'delete';
  once: string;
}): Html {
  const e = opts.endpoint;
  const rotate = opts.action === 'rotate';
  return appPage({
    title: rotate ? 'Rotate secret' : 'Delete endpoint',
    section: 'webhooks',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<section class="card narrow confirm" aria-labelledby="confirm-title">
  <h1 id="confirm-title">${rotate ? 'Rotate the signing secret?' : 'Delete this endpoint?'}</h1>
  <p class="url-cell"><code>${e.url}</code></p>
  ${
    rotate
      ? html`<p>A new secret signs every delivery from now on. The current one keeps signing beside it for 24 hours, so your receiver can switch without missing a message.</p>`
      : html`<div class="alert error" role="note">Nothing more is sent to it, retries included. Jobs that name it keep running.</div>`
  }
  <form method="post" action="/dashboard/webhooks/${e.id}/${opts.action}" class="actions">
    <input type="hidden" name="_csrf" value="${opts.csrf}">
    <input type="hidden" name="once" value="${opts.once}">
    <a class="button" href="/dashboard/webhooks/${e.id}">Cancel</a>
    <button class="button ${rotate ? 'primary' : 'danger'}" type="submit">${rotate ? 'Rotate secret' : 'Delete endpoint'}</button>
  </form>
</section>`,
  });
}
