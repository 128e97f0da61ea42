import type { Plan } from '../../auth/plans.js';
import { SIZES } from '../../render/template/sizes.js';
import type { TemplateRegistry } from '../../render/template/types.js';
import type { Account, ApiKeyRecord } from '../../storage/store.js';
import { type Html, html } from '../html.js';
import type { PlaygroundInput, PlaygroundResult } from '../playground.js';
import { shortDate } from './format.js';
import { appPage } from './layout.js';
import { templateFields } from './playground-fields.js';

/** The template playground: the form, the live preview and the snippets to copy. */
export function playgroundPage(opts: {
  account: Account;
  csrf: string;
  plan: Plan | undefined;
  keys: ApiKeyRecord[];
  registry: TemplateRegistry;
  input: PlaygroundInput;
  result: PlaygroundResult | null;
  error: string | null;
}): Html {
  const { input, result, registry } = opts;
  const allowed = (t: string) =>
    !!opts.plan && (opts.plan.templates === '*' || opts.plan.templates.includes(t));
  // An unknown name (a typed URL) shows the first template's form beside the API's message.
  const def = registry.get(input.template) ?? registry.list()[0]!;
  const size = result ? { width: result.width, height: result.height } : SIZES[def.sizes[0] ?? 'og'];
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
        ${registry
          .names()
          .map(
            (t) =>
              html`<option value="${t}" ${t === input.template ? html`selected` : ''} ${allowed(t) ? '' : html`disabled`}>${t}${allowed(t) ? '' : ' (not on your plan)'}</option>`,
          )}
      </select>
    </div>
    <div id="pg-fields" data-fields-for="${def.name}">
      ${templateFields(def, input.values, input.useTheme)}
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
  ${registry
    .list()
    .filter((t) => t.name !== def.name && allowed(t.name))
    .map((t) => html`<template data-fields="${t.name}">${templateFields(t, {}, true)}</template>`)}
  <div class="pg-output">
    <section class="card preview-card" aria-labelledby="preview-title">
      <div class="card-head"><h2 id="preview-title">Preview</h2><span class="subtle" id="pg-size-label">${size.width} × ${size.height} PNG</span></div>
      <div class="alert error" role="alert" id="pg-error" ${opts.error ? '' : html`hidden`}>${opts.error ?? ''}</div>
      <div class="preview-frame">
        ${
          result
            ? html`<img id="pg-preview" src="${result.previewUrl}" width="${size.width}" height="${size.height}" alt="Preview of the card">`
            : html`<img id="pg-preview" width="${size.width}" height="${size.height}" alt="Preview of the card" hidden>`
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
