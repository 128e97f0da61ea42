import { type CreatedKey, keyStatus } from '../../accounts/manager.js';
import type { Account, ApiKeyRecord } from '../../storage/store.js';
import { type Html, html } from '../html.js';
import { alertBox } from './auth.js';
import { dateTime, relative, shortDate, tableDate, timeTag } from './format.js';
import { appPage } from './layout.js';

export const ENVIRONMENTS = ['production', 'staging', 'development'] as const;
export const EXPIRY_CHOICES = [
  { value: '', label: 'Never' },
  { value: '30d', label: 'In 30 days' },
  { value: '90d', label: 'In 90 days' },
  { value: '365d', label: 'In 1 year' },
] as const;

/** What the create form had, to show it again with an error. */
export interface CreateForm {
  name: string;
  environment: string;
  custom: string;
  expires: string;
  error?: string;
}

/** The spec's key handling rules (§5.6), in the words a customer reads. */
export function keyAdvice(): Html {
  return html`<ul class="advice">
  <li><strong>Keep it secret.</strong> Store it in your server's environment or secret manager, never in a repository.</li>
  <li><strong>Server side only.</strong> Never put a key in front-end scripts, mobile apps or public repositories; pages use signed URLs instead.</li>
  <li><strong>One key per environment,</strong> so each one can be revoked without touching the others.</li>
  <li><strong>Exposed? Rotate it</strong> right away: the old key keeps working only for the grace period you choose.</li>
</ul>`;
}

/** The one-time panel with the new key and signing secret. */
function createdPanel(c: CreatedKey, rotatedFrom: ApiKeyRecord | undefined): Html {
  return html`<section class="card reveal" aria-labelledby="reveal-title" tabindex="-1" id="new-key-panel">
  <div class="card-head">
    <h2 id="reveal-title">${rotatedFrom ? 'Your rotated key' : 'Your new key'}: copy it now</h2>
    <span class="badge env">${c.record.environment}</span>
  </div>
  <p class="reveal-warning"><strong>This is the only time the key and its signing secret are shown.</strong> Cardshot stores only a hash; if you lose them, rotate the key.</p>
  ${secretRow('API key', 'new-key', c.key, 'Send it in the x-api-key header from your server.')}
  ${secretRow('Signing secret', 'new-secret', c.signingSecret, `Signs og:image URLs (npx cardshot sign … --key-id ${c.record.id}).`)}
  <p class="key-meta">Key id <code>${c.record.id}</code> (not secret) · ${c.record.name} · ${c.record.expiresAt === null ? 'never expires' : html`expires ${timeTag(c.record.expiresAt, shortDate(c.record.expiresAt))}`}</p>
  ${
    rotatedFrom?.expiresAt
      ? alertBox(
          'info',
          `The old key ${rotatedFrom.prefix}…${rotatedFrom.last4} keeps working until ${dateTime(rotatedFrom.expiresAt)}; deploy the new one before then.`,
        )
      : ''
  }
  ${keyAdvice()}
  <div class="actions"><a class="button" href="/dashboard/keys">I have saved it</a></div>
</section>`;
}

/** A secret with its label, copy button and hint: shown once, after it is made. */
export function secretRow(label: string, id: string, value: string, hint: string): Html {
  return html`<div class="secret-row">
  <p class="secret-label" id="${id}-label">${label}</p>
  <div class="secret-box"><code id="${id}" aria-labelledby="${id}-label">${value}</code><button class="button small copy" type="button" data-copy="${id}">Copy</button></div>
  <p class="field-hint">${hint}</p>
</div>`;
}

/** A message shown once above the list after a redirect. */
export interface Notice {
  kind: 'info' | 'success';
  text: string;
}

function statusBadge(k: ApiKeyRecord, now: number): Html {
  const s = keyStatus(k, now);
  if (s === 'active' && k.replacedBy !== null) {
    return html`<span class="badge warn" title="Replaced by ${k.replacedBy}; works until its grace period ends">Rotated</span>`;
  }
  if (s === 'active' && k.expiresAt !== null && k.expiresAt - now < 7 * 86_400_000) {
    return html`<span class="badge warn">Expiring</span>`;
  }
  return html`<span class="badge ${s}">${s[0]!.toUpperCase()}${s.slice(1)}</span>`;
}

function keyRow(k: ApiKeyRecord, now: number): Html {
  const active = keyStatus(k, now) === 'active';
  return html`<tr class="${active ? '' : 'inactive'}">
  <th scope="row"><span class="key-name">${k.name} <span class="badge env"><span class="visually-hidden">Environment: </span>${k.environment}</span></span><span class="key-id">${k.id}</span></th>
  <td data-label="Key"><code class="key-hint">${k.prefix}…${k.last4}</code></td>
  <td data-label="Created">${timeTag(k.createdAt, tableDate(k.createdAt, now))}</td>
  <td data-label="Last used">${k.lastUsedAt === null ? html`<span class="subtle">Never</span>` : timeTag(k.lastUsedAt, relative(k.lastUsedAt, now))}</td>
  <td data-label="Expires">${
    k.revokedAt !== null
      ? html`<span class="subtle">Revoked ${timeTag(k.revokedAt, tableDate(k.revokedAt, now))}</span>`
      : k.expiresAt === null
        ? html`<span class="subtle">Never</span>`
        : timeTag(k.expiresAt, relative(k.expiresAt, now))
  }</td>
  <td data-label="Status">${statusBadge(k, now)}</td>
  <td>${
    active
      ? html`<div class="row-actions">${
          // A key in its grace period is not rotated again (its replacement is); it can still be cut off early.
          k.replacedBy === null
            ? html`<a class="button small" href="/dashboard/keys/${k.id}/rotate" aria-label="Rotate ${k.name}">Rotate</a>`
            : ''
        }<a class="button small danger-ghost" href="/dashboard/keys/${k.id}/revoke" aria-label="Revoke ${k.name}">Revoke</a></div>`
      : ''
  }</td>
</tr>`;
}

function createForm(csrf: string, once: string, form: CreateForm | undefined): Html {
  const env = form?.environment ?? 'production';
  const err = form?.error;
  return html`<section class="card" id="create" aria-labelledby="create-title">
  <div class="card-head"><h2 id="create-title">Create a key</h2></div>
  ${err ? html`<div class="alert error" role="alert" id="create-error">${err}</div>` : ''}
  <form method="post" action="/dashboard/keys" class="form-grid" novalidate>
    <input type="hidden" name="_csrf" value="${csrf}">
    <input type="hidden" name="once" value="${once}">
    <div class="field">
      <label for="key-name">Name</label>
      <input id="key-name" name="name" type="text" maxlength="200" required placeholder="Website" value="${form?.name ?? ''}" aria-describedby="key-name-hint" ${err ? html`aria-invalid="true"` : ''}>
      <p class="field-hint" id="key-name-hint">Where the key is used, so you recognise it later.</p>
    </div>
    <div class="field">
      <label for="key-env">Environment</label>
      <select id="key-env" name="environment" data-custom-toggle="key-custom-field">
        ${ENVIRONMENTS.map((e) => html`<option value="${e}" ${env === e ? html`selected` : ''}>${e[0]!.toUpperCase()}${e.slice(1)}</option>`)}
        <option value="custom" ${env === 'custom' ? html`selected` : ''}>Custom label…</option>
      </select>
    </div>
    <div class="field">
      <label for="key-expires">Expires</label>
      <select id="key-expires" name="expires">
        ${EXPIRY_CHOICES.map((c) => html`<option value="${c.value}" ${form?.expires === c.value ? html`selected` : ''}>${c.label}</option>`)}
      </select>
    </div>
    <div class="field" id="key-custom-field" data-custom-field>
      <label for="key-custom">Custom label</label>
      <input id="key-custom" name="custom" type="text" maxlength="16" pattern="[a-z][a-z0-9]{0,15}" placeholder="ci" value="${form?.custom ?? ''}" aria-describedby="key-custom-hint">
      <p class="field-hint" id="key-custom-hint">Used when the environment is “Custom label”: 1–16 lower-case letters and digits (ci, preview, eu1).</p>
    </div>
    <div class="form-actions"><button class="button primary" type="submit">Create key</button></div>
  </form>
</section>`;
}

/** The API keys panel: the one-time reveal (after create or rotate), the list and the create form. */
export function keysPage(opts: {
  account: Account;
  csrf: string;
  keys: ApiKeyRecord[];
  now: number;
  once: string;
  created?: CreatedKey;
  rotatedFrom?: ApiKeyRecord;
  notice?: Notice | null;
  form?: CreateForm;
}): Html {
  const now = opts.now;
  const order = (k: ApiKeyRecord) => (keyStatus(k, now) === 'active' ? 0 : 1);
  const keys = [...opts.keys].sort((a, b) => order(a) - order(b) || b.createdAt - a.createdAt);
  return appPage({
    title: 'API keys',
    section: 'keys',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<div class="page-head">
  <div>
    <h1>API keys</h1>
    <p class="subtle">Keys authenticate requests to <code>/render/…</code> with the <code>x-api-key</code> header. A key is shown once, when it is created.</p>
  </div>
  <a class="button primary" href="#create">Create key</a>
</div>
${opts.created ? createdPanel(opts.created, opts.rotatedFrom) : ''}
${opts.notice ? alertBox(opts.notice.kind, opts.notice.text) : ''}
<section class="card flush" aria-labelledby="list-title">
  <div class="card-head padded"><h2 id="list-title">Your keys</h2><span class="subtle">${keys.filter((k) => order(k) === 0).length} active</span></div>
  ${
    keys.length === 0
      ? html`<p class="empty-state">No keys yet. Create one below to start rendering cards.</p>`
      : html`<div class="table-wrap"><table class="keys">
    <thead><tr><th scope="col">Name and environment</th><th scope="col">Key</th><th scope="col">Created</th><th scope="col">Last used</th><th scope="col">Expires</th><th scope="col">Status</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
    <tbody>${keys.map((k) => keyRow(k, now))}</tbody>
  </table></div>`
  }
</section>
<div class="two-col">
  ${createForm(opts.csrf, opts.once, opts.form)}
  <aside class="card note" aria-labelledby="advice-title"><h2 id="advice-title">Handling keys safely</h2>${keyAdvice()}</aside>
</div>`,
  });
}

/** Confirmation before revoking. */
export function revokePage(opts: { account: Account; csrf: string; key: ApiKeyRecord }): Html {
  const k = opts.key;
  return appPage({
    title: 'Revoke key',
    section: 'keys',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<section class="card narrow confirm" aria-labelledby="confirm-title">
  <h1 id="confirm-title">Revoke “${k.name}”?</h1>
  <p><code class="key-hint">${k.prefix}…${k.last4}</code> <span class="badge env">${k.environment}</span></p>
  <div class="alert error" role="note">Every request with this key will get <code>401 Missing or invalid API key</code>, starting now. Signed URLs made with it stop working too. This cannot be undone.</div>
  <form method="post" action="/dashboard/keys/${k.id}/revoke" class="actions">
    <input type="hidden" name="_csrf" value="${opts.csrf}">
    <a class="button" href="/dashboard/keys">Cancel</a>
    <button class="button danger" type="submit">Revoke key</button>
  </form>
</section>`,
  });
}

export const GRACE_CHOICES = [
  { value: '0', label: 'Immediately', ms: 0 },
  { value: '1h', label: 'In 1 hour', ms: 3_600_000 },
  { value: '24h', label: 'In 24 hours', ms: 86_400_000 },
  { value: '7d', label: 'In 7 days', ms: 7 * 86_400_000 },
  { value: '30d', label: 'In 30 days', ms: 30 * 86_400_000 },
] as const;

/** Rotation: choose how long the old key keeps working. */
export function rotatePage(opts: {
  account: Account;
  csrf: string;
  key: ApiKeyRecord;
  once: string;
  error?: string;
}): Html {
  const k = opts.key;
  return appPage({
    title: 'Rotate key',
    section: 'keys',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<section class="card narrow confirm" aria-labelledby="confirm-title">
  <h1 id="confirm-title">Rotate “${k.name}”</h1>
  <p><code class="key-hint">${k.prefix}…${k.last4}</code> <span class="badge env">${k.environment}</span></p>
  <p>Rotation creates a new key with the same name and environment. The old key keeps working for the grace period, so you can deploy the new one without downtime.</p>
  ${
    k.expiresAt === null
      ? ''
      : html`<p class="field-hint">This key expires ${dateTime(k.expiresAt)}. The new key keeps that date, and the old one stops then at the latest, whatever grace period you choose.</p>`
  }
  ${alertBox('error', opts.error)}
  <form method="post" action="/dashboard/keys/${k.id}/rotate" class="stack">
    <input type="hidden" name="_csrf" value="${opts.csrf}">
    <input type="hidden" name="once" value="${opts.once}">
    <div class="field">
      <label for="grace">The old key stops working</label>
      <select id="grace" name="grace">
        ${GRACE_CHOICES.map((g) => html`<option value="${g.value}" ${g.value === '24h' ? html`selected` : ''}>${g.label}</option>`)}
      </select>
    </div>
    <div class="actions">
      <a class="button" href="/dashboard/keys">Cancel</a>
      <button class="button primary" type="submit">Rotate key</button>
    </div>
  </form>
</section>`,
  });
}
