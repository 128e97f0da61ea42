import type { Plan } from '../../auth/plans.js';
import { USER_AGENT_MAX } from '../../render/screenshot/credentials.js';
import { HIDE_SELECTORS_MAX, SELECTOR_MAX_LENGTH } from '../../render/screenshot/engine/page/selectors.js';
import { type OptionSpec, optionSpec, SHOT_OPTIONS } from '../../render/screenshot/option-table.js';
import { WAIT_UNTIL } from '../../render/screenshot/request.js';
import type { Viewport } from '../../render/screenshot/viewports.js';
import type { Account, ApiKeyRecord } from '../../storage/store.js';
import { type Html, html, raw } from '../html.js';
import {
  planShotOptions,
  SHOT_GROUPS,
  type ShotOptionField,
  type ShotPlaygroundInput,
  type ShotPlaygroundResult,
} from '../screenshot-playground.js';
import { shortDate } from './format.js';
import { appPage } from './layout.js';
import { playgroundTabs, snippet } from './playground.js';

interface PageOpts {
  account: Account;
  csrf: string;
  plan: Plan | undefined;
  keys: ApiKeyRecord[];
  viewports: readonly Viewport[];
  input: ShotPlaygroundInput;
  result: ShotPlaygroundResult | null;
  error: string | null;
}

/** The fieldsets' legends. */
const LEGENDS: Record<(typeof SHOT_GROUPS)[number], string> = {
  capture: 'What to capture',
  page: 'Page',
  image: 'Image',
  pdf: 'PDF (format PDF)',
};

/** Labels and hints of the option controls (what a person reads, not the parameter names), from the table. */
const form = (name: ShotOptionField) => optionSpec(name).form;

/** The screenshot playground: URL, viewport and every option; the preview is the real capture. */
export function screenshotPlaygroundPage(opts: PageOpts): Html {
  const { input, result } = opts;
  const noShots = !opts.plan || opts.plan.screenshots === false;
  const noKeys = opts.keys.length === 0;
  return appPage({
    title: 'Screenshot playground',
    section: 'playground',
    account: opts.account,
    csrf: opts.csrf,
    scripts: ['shot-credentials.js', 'shot-playground.js'],
    body: html`<div class="page-head">
  <div>
    <h1>Screenshot playground</h1>
    <p class="subtle">Capture a page through the real API with your plan's options, then copy the request as a signed URL or as curl.</p>
  </div>
</div>
${playgroundTabs('screenshot')}
${noShots ? html`<div class="callout"><div><strong>Screenshots are not available on your plan.</strong> Ask the operator of this server for a plan with screenshots.</div></div>` : ''}
${noKeys && !noShots ? html`<div class="callout"><div><strong>You need an active API key.</strong> Previews and screenshot URLs are signed with one of your keys (the key itself never reaches the page).</div><a class="button primary small" href="/dashboard/keys#create">Create a key</a></div>` : ''}
<div class="playground" data-shot-playground data-csrf="${opts.csrf}">
  <form class="card pg-form" method="get" action="/dashboard/playground/screenshot" id="shot-form" novalidate>
    <div class="field">
      <label for="shot-url">Page URL</label>
      <input id="shot-url" name="url" type="url" maxlength="2048" required placeholder="https://example.com/" value="${input.url}">
    </div>
    ${viewportField(opts)}
    <div class="field">
      <label for="shot-waitUntil">Wait until</label>
      <select id="shot-waitUntil" name="waitUntil">
        ${WAIT_UNTIL.map((w) => html`<option value="${w}" ${w === (input.waitUntil || 'load') ? html`selected` : ''}>${w}</option>`)}
      </select>
    </div>
    ${joined(
      SHOT_GROUPS.map((group) => optionFieldset(group, opts)),
      '\n    ',
    )}
    ${credentialsFieldset()}
    <div class="field">
      <label for="shot-key">Sign with key</label>
      <select id="shot-key" name="key" ${noKeys ? html`disabled` : ''} aria-describedby="shot-key-hint">
        ${opts.keys.map((k) => html`<option value="${k.id}" ${k.id === (result?.keyId ?? input.key) ? html`selected` : ''}>${k.name} · ${k.environment} · ${k.prefix}…${k.last4}${k.expiresAt === null ? '' : ` · expires ${shortDate(k.expiresAt)}`}</option>`)}
      </select>
      <p class="field-hint" id="shot-key-hint">Captures count against this key's account, like any API call.</p>
    </div>
    <div class="form-actions"><button class="button primary" type="submit" ${noShots || noKeys ? html`disabled` : ''}>Capture</button><span class="pg-status" role="status" aria-live="polite" id="shot-status"></span></div>
  </form>
  <div class="pg-output">
    <section class="card preview-card" aria-labelledby="shot-preview-title">
      <div class="card-head"><h2 id="shot-preview-title">Preview</h2><span class="subtle" id="shot-facts">${result ? `${result.format.toUpperCase()} from GET /render/url` : 'Enter a URL and press Capture'}</span></div>
      <div class="alert error" role="alert" id="shot-error" ${opts.error ? '' : html`hidden`}>${opts.error ?? ''}</div>
      <div class="alert info" id="shot-note" hidden></div>
      <div class="shot-frame">
        <img id="shot-preview" class="shot-image" alt="Screenshot of the page" ${result ? html`data-src="${result.previewUrl}"` : ''} hidden>
        <iframe id="shot-pdf" class="shot-pdf" title="PDF of the page" hidden></iframe>
        ${result ? html`<noscript><img class="shot-image" src="${result.previewUrl}" alt="Screenshot of the page"></noscript>` : ''}
      </div>
      <div class="shot-json" id="shot-json" hidden>
        <h3>The page</h3>
        <dl class="facts" id="shot-page-facts"></dl>
        <details><summary>The JSON answer</summary><pre class="code"><code id="shot-json-body"></code></pre></details>
      </div>
      <p class="shot-actions"><a class="button small" id="shot-download" download hidden>Download</a></p>
    </section>
    <section class="card" aria-labelledby="shot-snippets-title">
      <div class="card-head"><h2 id="shot-snippets-title">Use it</h2></div>
      ${snippet('shot-signed', 'Signed URL (for an <img> or og:image tag)', result?.signedUrl ?? '', result?.signedHint ?? 'Signed URL, valid for one year; it captures exactly this page with these options and cannot be altered.')}
      ${snippet('shot-curl', 'curl (from your server)', result?.curl ?? '', 'Reads your key from $CARDSHOT_KEY; never paste a key into a page.')}
    </section>
  </div>
</div>`,
  });
}

/** One fieldset: its options' controls in table order, the selects side by side in one row. */
function optionFieldset(group: (typeof SHOT_GROUPS)[number], opts: PageOpts): Html {
  const specs = SHOT_OPTIONS.filter((o: OptionSpec) => o.form.group === group);
  const selects = specs.filter((o: OptionSpec) => o.form.choices !== undefined);
  const selectOf = (o: OptionSpec) => selectField(o.name as ShotOptionField, opts, choicesOf(o));
  const controls = specs.flatMap((o: OptionSpec) => {
    if (o.form.choices === undefined) return [control(o, opts)];
    if (o !== selects[0]) return [];
    if (selects.length === 1) return [selectOf(o)];
    return [
      html`<div class="field-row">
        ${joined(selects.map(selectOf), '\n        ')}
      </div>`,
    ];
  });
  return html`<fieldset class="options">
      <legend>${LEGENDS[group]}</legend>
      ${joined(controls, '\n      ')}
    </fieldset>`;
}

/** The parts with `separator` between them (the page's source stays indented). */
function joined(parts: Html[], separator: string): Html[] {
  return parts.map((part, i) => html`${i > 0 ? separator : ''}${part}`);
}

const choicesOf = (spec: OptionSpec): Array<[string, string]> =>
  (spec.form.choices ?? []).map(([v, label]) => [v, label]);

/** The control of an option that is not a select, with its bounds as input attributes. */
function control(spec: OptionSpec, opts: PageOpts): Html {
  const name = spec.name as ShotOptionField;
  switch (spec.type) {
    case 'flag':
      return switchField(name, opts);
    case 'selector':
      return textField(name, opts, 'text', `maxlength="${SELECTOR_MAX_LENGTH}"`);
    case 'selectors':
      return textField(name, opts, 'text', `maxlength="${HIDE_SELECTORS_MAX * (SELECTOR_MAX_LENGTH + 1)}"`);
    case 'integer':
      return textField(
        name,
        opts,
        'number',
        `min="${spec.min}" max="${spec.max}"${spec.form.step ? ` step="${spec.form.step}"` : ''}`,
      );
    case 'quality':
      return textField(name, opts, 'number', 'min="1" max="100"');
    case 'text':
      return spec.form.multiline
        ? textArea(name, opts, spec.maxLength)
        : textField(name, opts, 'text', `maxlength="${spec.maxLength}"`);
    default:
      return textField(name, opts);
  }
}

/** Why a control is off, or null when the plan allows the option. */
function refusal(name: ShotOptionField, opts: PageOpts): string | null {
  const allowed = planShotOptions(opts.plan);
  if (allowed === '*' || allowed.includes(name)) return null;
  return `Not available on your plan (${opts.plan?.name ?? 'none'}).`;
}

function hintOf(name: ShotOptionField, opts: PageOpts): Html {
  const why = refusal(name, opts);
  const hint = why ?? form(name).hint;
  if (!hint) return html``;
  return html`<p class="field-hint${why ? ' refused' : ''}" id="shot-${name}-hint" data-refused="${why ? 'true' : 'false'}">${hint}</p>`;
}

function described(name: ShotOptionField, opts: PageOpts): Html {
  return refusal(name, opts) || form(name).hint ? html`aria-describedby="shot-${name}-hint"` : html``;
}

function switchField(name: ShotOptionField, opts: PageOpts): Html {
  const off = refusal(name, opts) !== null;
  const on = !off && ['true', '1', 'on'].includes(opts.input[name]);
  return html`<div class="check">
  <input id="shot-${name}" name="${name}" type="checkbox" value="true" ${on ? html`checked` : ''} ${off ? html`disabled` : ''} ${described(name, opts)}>
  <label for="shot-${name}">${form(name).label}</label>
  ${hintOf(name, opts)}
</div>`;
}

function textField(name: ShotOptionField, opts: PageOpts, type = 'text', attrs = ''): Html {
  const off = refusal(name, opts) !== null;
  return html`<div class="field">
  <label for="shot-${name}">${form(name).label} <span class="optional">optional</span></label>
  <input id="shot-${name}" name="${name}" type="${type}" ${type === 'number' ? html`inputmode="numeric"` : ''} ${raw(attrs)} placeholder="${form(name).placeholder ?? ''}" value="${off ? '' : opts.input[name]}" ${off ? html`disabled data-plan-off` : ''} ${described(name, opts)}>
  ${hintOf(name, opts)}
</div>`;
}

function textArea(name: ShotOptionField, opts: PageOpts, maxLength: number): Html {
  const off = refusal(name, opts) !== null;
  return html`<div class="field">
  <label for="shot-${name}">${form(name).label} <span class="optional">optional</span></label>
  <textarea id="shot-${name}" name="${name}" rows="3" maxlength="${maxLength}" placeholder="${form(name).placeholder ?? ''}" ${off ? html`disabled data-plan-off` : ''} ${described(name, opts)}>${off ? '' : opts.input[name]}</textarea>
  ${hintOf(name, opts)}
</div>`;
}

function selectField(name: ShotOptionField, opts: PageOpts, choices: Array<[string, string]>): Html {
  const off = refusal(name, opts) !== null;
  const current = off ? '' : opts.input[name];
  return html`<div class="field">
  <label for="shot-${name}">${form(name).label}</label>
  <select id="shot-${name}" name="${name}" ${off ? html`disabled` : ''} ${described(name, opts)}>
    ${choices.map(([v, label]) => html`<option value="${v}" ${v === current || (current === '' && v === choices[0]![0]) ? html`selected` : ''}>${label}</option>`)}
  </select>
  ${hintOf(name, opts)}
</div>`;
}

function viewportField(opts: PageOpts): Html {
  const allowed = opts.plan && opts.plan.screenshots !== false ? opts.plan.screenshots.viewports : [];
  const ok = (name: string) => allowed === '*' || allowed.includes(name);
  const current = opts.input.viewport || 'og';
  return html`<div class="field">
  <label for="shot-viewport">Viewport</label>
  <select id="shot-viewport" name="viewport">
    ${opts.viewports.map(
      (v) =>
        html`<option value="${v.name}" ${v.name === current ? html`selected` : ''} ${ok(v.name) ? '' : html`disabled`}>${v.name} · ${v.width}×${v.height}${v.scale === 1 ? '' : ` @${v.scale}×`}${ok(v.name) ? '' : ' (not on your plan)'}</option>`,
    )}
  </select>
</div>`;
}

/**
 * The credentials of a page behind a sign-in (issue 29 §2), shown only with script: they are
 * sent with the capture as a POST, never as a URL. The inputs have no `name`, so the form's GET
 * (without script) can never put them in the address; the browser is asked not to keep them.
 */
function credentialsFieldset(): Html {
  const label = (name: 'headers' | 'cookies' | 'basicAuth' | 'userAgent') => optionSpec(name).form.label;
  const row = (kind: 'header' | 'cookie', names: [string, string]) =>
    html`<div class="cred-row" data-row="${kind}">
          <input type="text" aria-label="${names[0]}" data-part="name" autocomplete="off" spellcheck="false" maxlength="256" placeholder="${kind === 'header' ? 'X-Token' : 'session'}">
          <input type="text" aria-label="${names[1]}" data-part="value" autocomplete="off" spellcheck="false" maxlength="8192" placeholder="value">
          <button class="button small ghost" type="button" data-remove-row aria-label="Remove this ${kind}">Remove</button>
        </div>`;
  return html`<fieldset class="options credentials" id="shot-credentials" data-credentials hidden>
      <legend>Signed in (optional)</legend>
      <p class="field-hint" id="shot-credentials-hint">Sent with each capture to the page’s own origin only. Never stored: not in this page’s address, this browser’s storage, the server’s session, database or logs. A capture with them has no signed URL.</p>
      <div class="field" role="group" aria-label="${label('headers')}">
        <span class="field-label">${label('headers')}</span>
        <div class="cred-rows" data-rows="header">
        ${row('header', ['Header name', 'Header value'])}
        </div>
        <button class="button small" type="button" data-add-row="header">Add header</button>
      </div>
      <div class="field" role="group" aria-label="${label('cookies')}">
        <span class="field-label">${label('cookies')}</span>
        <div class="cred-rows" data-rows="cookie">
        ${row('cookie', ['Cookie name', 'Cookie value'])}
        </div>
        <button class="button small" type="button" data-add-row="cookie">Add cookie</button>
      </div>
      <div class="field" role="group" aria-labelledby="shot-basic-label">
        <span class="field-label" id="shot-basic-label">${label('basicAuth')}</span>
        <div class="field-row">
          <input id="shot-basic-username" type="text" aria-label="Basic auth username" placeholder="username" autocomplete="off" spellcheck="false" maxlength="256" data-credential="basicAuth.username">
          <input id="shot-basic-password" type="password" aria-label="Basic auth password" placeholder="password" autocomplete="off" maxlength="256" data-credential="basicAuth.password">
        </div>
      </div>
      <div class="field">
        <label for="shot-userAgent">${label('userAgent')} <span class="optional">optional</span></label>
        <input id="shot-userAgent" type="text" autocomplete="off" spellcheck="false" maxlength="${USER_AGENT_MAX}" placeholder="${optionSpec('userAgent').form.placeholder ?? ''}" data-credential="userAgent">
      </div>
    </fieldset>`;
}
