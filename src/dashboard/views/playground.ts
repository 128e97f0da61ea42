import type { Plan } from '../../auth/plans.js';
import { isTemplateName, TEMPLATE_NAMES, TEMPLATES } from '../../render/template/registry.js';
import type { Account, ApiKeyRecord } from '../../storage/store.js';
import { type Html, html } from '../html.js';
import type { PlaygroundInput, PlaygroundResult } from '../playground.js';
import { shortDate } from './format.js';
import { appPage } from './layout.js';

/** The template playground: the form, the live preview and the snippets to copy. */
export function playgroundPage(opts: {
  account: Account;
  csrf: string;
  plan: Plan | undefined;
  keys: ApiKeyRecord[];
  input: PlaygroundInput;
  result: PlaygroundResult | null;
  error: string | null;
}): Html {
  const { input, result } = opts;
  const allowed = (t: string) =>
    !!opts.plan && (opts.plan.templates === '*' || opts.plan.templates.includes(t));
  const uses = isTemplateName(input.template)
    ? TEMPLATES[input.template].uses
    : { brand: true, artwork: true };
  const noKeys = opts.keys.length === 0;
  return appPage({
    title: 'Playground',
    section: 'playground',
    account: opts.account,
    csrf: opts.csrf,
    body: html`<div class="page-head">
  <div>
    <h1>Template playground</h1>
    <p class="subtle">Type your text and watch the card render from the real API. Copy the og:image tag when it looks right.</p>
  </div>
</div>
${playgroundTabs('template')}
${
  noKeys
    ? html`<div class="callout"><div><strong>You need an active API key.</strong> Previews and og:image URLs are signed with one of your keys (the key itself never reaches the page).</div><a class="button primary small" href="/dashboard/keys#create">Create a key</a></div>`
    : ''
}
<div class="playground" data-playground data-csrf="${opts.csrf}">
  <form class="card pg-form" method="get" action="/dashboard/playground" id="pg-form" novalidate>
    <div class="field">
      <label for="pg-template">Template</label>
      <select id="pg-template" name="template">
        ${TEMPLATE_NAMES.map(
          (t) =>
            html`<option value="${t}" ${t === input.template ? html`selected` : ''} ${allowed(t) ? '' : html`disabled`}>${t}${allowed(t) ? '' : ' (not on your plan)'}</option>`,
        )}
      </select>
    </div>
    <div class="field">
      <label for="pg-title">Title</label>
      <textarea id="pg-title" name="title" rows="2" maxlength="200" required>${input.title}</textarea>
    </div>
    <div class="field">
      <label for="pg-subtitle">Subtitle <span class="optional">optional</span></label>
      <textarea id="pg-subtitle" name="subtitle" rows="2" maxlength="300">${input.subtitle}</textarea>
    </div>
    <div class="field">
      <label for="pg-brand">Brand <span class="optional">optional</span></label>
      <input id="pg-brand" name="brand" type="text" maxlength="60" value="${input.brand}" aria-describedby="pg-brand-hint">
      <p class="field-hint" id="pg-brand-hint" data-uses="brand">${uses.brand ? 'Drawn by this template.' : 'Not drawn by this template.'}</p>
    </div>
    <div class="field">
      <label for="pg-image">Image URL <span class="optional">optional</span></label>
      <input id="pg-image" name="imageUrl" type="url" maxlength="2048" placeholder="https://example.com/product.jpg" value="${input.imageUrl}" aria-describedby="pg-image-hint">
      <p class="field-hint" id="pg-image-hint" data-uses="artwork">${uses.artwork ? 'Drawn by this template (public http or https address).' : 'Not drawn by this template.'}</p>
    </div>
    <div class="field">
      <label for="pg-key">Sign with key</label>
      <select id="pg-key" name="key" ${noKeys ? html`disabled` : ''} aria-describedby="pg-key-hint">
        ${opts.keys.map((k) => html`<option value="${k.id}" ${k.id === (result?.keyId ?? input.key) ? html`selected` : ''}>${k.name} · ${k.environment} · ${k.prefix}…${k.last4}${k.expiresAt === null ? '' : ` · expires ${shortDate(k.expiresAt)}`}</option>`)}
      </select>
      <p class="field-hint" id="pg-key-hint">The og:image URL is signed with this key and stops working if you revoke it.</p>
    </div>
    <div class="form-actions"><button class="button primary" type="submit">Update preview</button><span class="pg-status" role="status" aria-live="polite" id="pg-status"></span></div>
  </form>
  <div class="pg-output">
    <section class="card preview-card" aria-labelledby="preview-title">
      <div class="card-head"><h2 id="preview-title">Preview</h2><span class="subtle">1200 × 630 PNG</span></div>
      <div class="alert error" role="alert" id="pg-error" ${opts.error ? '' : html`hidden`}>${opts.error ?? ''}</div>
      <div class="preview-frame">
        ${
          result
            ? html`<img id="pg-preview" src="${result.previewUrl}" width="1200" height="630" alt="Preview of the card">`
            : html`<img id="pg-preview" width="1200" height="630" alt="Preview of the card" hidden>`
        }
      </div>
    </section>
    <section class="card" aria-labelledby="snippets-title">
      <div class="card-head"><h2 id="snippets-title">Use it</h2></div>
      ${snippet('pg-meta', 'og:image tag for your page', result?.metaTag ?? '', result?.ogHint ?? 'Signed URL, valid for one year; it renders exactly this card and cannot be altered.')}
      ${snippet('pg-curl', 'curl (from your server)', result?.curl ?? '', 'Reads your key from $CARDSHOT_KEY; never paste a key into a page.')}
    </section>
  </div>
</div>`,
  });
}

/** The two playgrounds side by side: template cards and page screenshots. */
export function playgroundTabs(current: 'template' | 'screenshot'): Html {
  const tab = (id: 'template' | 'screenshot', href: string, label: string) =>
    html`<a href="${href}" ${id === current ? html`aria-current="page"` : ''}>${label}</a>`;
  return html`<nav class="tabs" aria-label="Playgrounds">${tab('template', '/dashboard/playground', 'Template cards')}${tab('screenshot', '/dashboard/playground/screenshot', 'Screenshots')}</nav>`;
}

/** A snippet to copy: label, copy button, the code and a hint under it. */
export function snippet(id: string, label: string, value: string, hint: string): Html {
  return html`<div class="snippet">
  <div class="snippet-head"><p class="secret-label" id="${id}-label">${label}</p><button class="button small copy" type="button" data-copy="${id}" ${value ? '' : html`disabled`}>Copy</button></div>
  <pre class="code"><code id="${id}" aria-labelledby="${id}-label">${value}</code></pre>
  <p class="field-hint" id="${id}-hint">${hint}</p>
</div>`;
}
