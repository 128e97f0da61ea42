import type { Plan } from '../../auth/plans.js';
import type { FontRecord } from '../../fonts/types.js';
import { SIZES } from '../../render/template/sizes.js';
import type { TemplateDefinition } from '../../render/template/types.js';
import type { Account } from '../../storage/store.js';
import { THEME_FONTS } from '../../themes/service.js';
import { type Html, html } from '../html.js';
import { alertBox } from './auth.js';
import { dateTime } from './format.js';
import { appPage } from './layout.js';

/** The colours and font the form shows: the saved theme, the defaults, or what was just sent back. */
export interface ThemeForm {
  background: string;
  text: string;
  accent: string;
  font: string;
  /** One of the account's uploaded families, '' for none; absent: the form did not say. */
  fontFamily?: string;
  logoUrl: string;
}

const FONT_LABELS: Record<string, string> = { sans: 'Sans serif (Inter)', serif: 'Serif (Source Serif 4)' };

/** The Theme page: the form, the logo, and a live preview drawn with the unsaved values. */
export function themePage(opts: {
  account: Account;
  csrf: string;
  plan: Plan | undefined;
  templates: readonly TemplateDefinition[];
  form: ThemeForm;
  /** The account's uploaded fonts (the Fonts card and the family choice). */
  fonts: readonly FontRecord[];
  saved: { updatedAt: number; logo: { width: number; height: number } | null } | null;
  notice: { kind: 'success' | 'info'; text: string } | null;
  error: string | null;
}): Html {
  const { form, saved } = opts;
  const allowed = (t: string) =>
    !!opts.plan && (opts.plan.templates === '*' || opts.plan.templates.includes(t));
  const usable = opts.templates.filter((t) => allowed(t.name));
  const first = usable.find((t) => t.uses.theme) ?? usable[0];
  return appPage({
    title: 'Theme',
    section: 'theme',
    account: opts.account,
    csrf: opts.csrf,
    scripts: ['theme.js'],
    body: html`<div class="page-head">
  <div>
    <h1>Brand theme</h1>
    <p class="subtle">Your colours, font and logo, used by every template that supports themes. A card request can still ask for a template’s own look with <code>theme=none</code>.</p>
  </div>
</div>
${alertBox('error', opts.error)}
${opts.notice ? alertBox(opts.notice.kind, opts.notice.text) : ''}
<div class="playground" data-theme-page data-csrf="${opts.csrf}">
  <div class="stack">
    <form class="card pg-form theme-form" method="post" action="/dashboard/theme" id="theme-form" novalidate>
      <input type="hidden" name="_csrf" value="${opts.csrf}">
      <div class="card-head"><h2>Colours and font</h2><span class="subtle" id="theme-saved">${saved ? `Saved ${dateTime(saved.updatedAt)}` : 'Not saved yet'}</span></div>
      ${colorField('background', 'Background', form.background)}
      ${colorField('text', 'Text', form.text, 'At least 3:1 contrast with the background (WCAG large text).')}
      ${colorField('accent', 'Accent', form.accent)}
      <div class="field">
        <label for="theme-font">Font</label>
        <select id="theme-font" name="font">
          ${THEME_FONTS.map((f) => html`<option value="${f}" ${f === form.font ? html`selected` : ''}>${FONT_LABELS[f] ?? f}</option>`)}
        </select>
      </div>
      ${familyField(opts.fonts, form.fontFamily ?? '')}
      <div class="field">
        <label for="theme-logo-url">Logo URL <span class="optional">optional</span></label>
        <input id="theme-logo-url" name="logoUrl" type="url" maxlength="2048" placeholder="https://example.com/logo.png" value="${form.logoUrl}" aria-describedby="theme-logo-url-hint">
        <p class="field-hint" id="theme-logo-url-hint">Fetched once when you save, then stored with your theme. Leave empty to keep the current logo.</p>
      </div>
      <div class="form-actions"><button class="button primary" type="submit">Save theme</button><span class="pg-status" role="status" aria-live="polite" id="theme-status"></span></div>
    </form>
    ${fontsCard(opts.fonts, opts.csrf)}
    <section class="card" aria-labelledby="logo-title">
      <div class="card-head"><h2 id="logo-title">Logo</h2><span class="subtle" id="theme-logo-size">${saved?.logo ? `${saved.logo.width} × ${saved.logo.height} PNG` : 'None'}</span></div>
      ${saved?.logo ? html`<div class="logo-frame"><img id="theme-logo" src="/dashboard/theme/logo.png?v=${saved.updatedAt}" width="${saved.logo.width}" height="${saved.logo.height}" alt="Your logo"></div>` : ''}
      <div class="field">
        <label for="theme-logo-file">Upload a logo</label>
        <input id="theme-logo-file" type="file" accept="image/png,image/jpeg,image/webp,image/gif,image/avif" aria-describedby="theme-logo-file-hint">
        <p class="field-hint" id="theme-logo-file-hint">PNG, JPEG, WebP, GIF or AVIF up to 1 MB; stored as a PNG of at most 512 × 512, transparency kept. Saved as soon as it is chosen; your other changes stay as they are until you save them.</p>
      </div>
      <div class="alert error" role="alert" id="theme-logo-error" hidden></div>
      <div class="form-actions">
        ${
          saved?.logo
            ? html`<form method="post" action="/dashboard/theme/logo/remove"><input type="hidden" name="_csrf" value="${opts.csrf}"><button class="button small" type="submit">Remove logo</button></form>`
            : ''
        }
        ${
          saved
            ? html`<form method="post" action="/dashboard/theme/reset"><input type="hidden" name="_csrf" value="${opts.csrf}"><button class="button small danger" type="submit">Reset theme</button></form>`
            : ''
        }
      </div>
    </section>
  </div>
  <div class="pg-output">
    <section class="card preview-card" aria-labelledby="preview-title">
      <div class="card-head"><h2 id="preview-title">Preview</h2><span class="subtle" id="theme-preview-size">${SIZES.og.width} × ${SIZES.og.height} PNG</span></div>
      <div class="field-row">
        <div class="field">
          <label for="theme-template">Template</label>
          <select id="theme-template" name="template">
            ${usable.map((t) => html`<option value="${t.name}" data-sizes="${t.sizes.join(',')}" data-themed="${t.uses.theme ? '1' : '0'}" ${t === first ? html`selected` : ''}>${t.name}${t.uses.theme ? '' : ' (own look)'}</option>`)}
          </select>
        </div>
        <div class="field">
          <label for="theme-size">Size</label>
          <select id="theme-size" name="size">
            ${Object.values(SIZES).map((s) => html`<option value="${s.name}" ${s.name === 'og' ? html`selected` : ''} ${first && !first.sizes.includes(s.name) ? html`disabled` : ''}>${s.name} · ${s.width} × ${s.height}</option>`)}
          </select>
        </div>
      </div>
      <p class="field-hint" id="theme-uses">${first && !first.uses.theme ? 'This template does not draw themes: the preview shows its own look.' : 'Drawn with the values in the form, saved or not.'}</p>
      <div class="alert error" role="alert" id="theme-error" hidden></div>
      <div class="preview-frame theme-frame">
        ${first ? html`<img id="theme-preview" src="/dashboard/theme/preview.png?template=${first.name}&amp;size=og" width="${SIZES.og.width}" height="${SIZES.og.height}" alt="Preview of a card in your theme">` : ''}
      </div>
    </section>
  </div>
</div>`,
  });
}

function colorField(name: string, label: string, value: string, hint?: string): Html {
  return html`<div class="field">
  <label for="theme-${name}">${label}</label>
  <div class="color-field">
    <input type="color" id="theme-${name}-picker" value="${value.toLowerCase()}" aria-label="${label} colour picker" data-color-for="theme-${name}">
    <input type="text" id="theme-${name}" name="${name}" value="${value}" maxlength="7" pattern="#[0-9A-Fa-f]{6}" spellcheck="false" autocomplete="off"${hint ? html` aria-describedby="theme-${name}-hint"` : ''}>
  </div>
  ${hint ? html`<p class="field-hint" id="theme-${name}-hint">${hint}</p>` : ''}
</div>`;
}

/** The uploaded family headlines and text are set in; the bundled `font` stays the fallback. */
function familyField(fonts: readonly FontRecord[], chosen: string): Html {
  const families = [...new Set(fonts.map((f) => f.family))];
  return html`<div class="field">
  <label for="theme-font-family">Your font <span class="optional">optional</span></label>
  <select id="theme-font-family" name="fontFamily" aria-describedby="theme-font-family-hint" ${families.length === 0 ? html`disabled` : ''}>
    <option value="" ${chosen === '' ? html`selected` : ''}>None: the font above</option>
    ${families.map((f) => html`<option value="${f}" ${f.toLowerCase() === chosen.toLowerCase() ? html`selected` : ''}>${f}</option>`)}
  </select>
  <p class="field-hint" id="theme-font-family-hint">${
    families.length === 0
      ? html`Upload a font in the Fonts card (or with <code>npx cardshot fonts add FILE</code>) to set your cards in it.`
      : 'Headlines and text in your font; scripts it lacks fall back to the bundled Noto fonts.'
  }</p>
</div>`;
}

/** The account's uploaded fonts, one line each, and the upload (theme.js sends the file). */
function fontsCard(fonts: readonly FontRecord[], csrf: string): Html {
  return html`<section class="card" aria-labelledby="fonts-title">
  <div class="card-head"><h2 id="fonts-title">Fonts</h2><span class="subtle">${fonts.length === 1 ? '1 file' : `${fonts.length} files`}</span></div>
  ${
    fonts.length === 0
      ? html`<p class="subtle">No fonts yet. WOFF2, WOFF, TTF or OTF (variable fonts too), up to 10 MB each, here or with <code>npx cardshot fonts add BrandSans.woff2 --family "Brand Sans"</code>.</p>`
      : html`<table class="fonts"><thead><tr><th>Family</th><th>Weight</th><th>File</th><th><span class="visually-hidden">Remove</span></th></tr></thead><tbody>
    ${fonts.map((f) => html`<tr><td>${f.family}${f.italic ? ' italic' : ''}</td><td>${f.weightRange[0] === f.weightRange[1] ? String(f.weight) : `${f.weightRange[0]}–${f.weightRange[1]}`}</td><td title="${f.id}">${f.format}, ${String(Math.max(1, Math.round(f.size / 1024)))} KB</td><td><form method="post" action="/dashboard/theme/fonts/${f.id}/remove"><input type="hidden" name="_csrf" value="${csrf}"><button class="button small danger" type="submit" aria-label="Remove ${f.family} ${String(f.weight)}">Remove</button></form></td></tr>`)}
  </tbody></table>`
  }
  <div class="field">
    <label for="theme-font-upload-family">Family name <span class="optional">optional</span></label>
    <input id="theme-font-upload-family" type="text" maxlength="64" placeholder="The name inside the file" aria-describedby="theme-font-upload-hint">
    <label for="theme-font-file">Upload a font</label>
    <input id="theme-font-file" type="file" accept=".woff2,.woff,.ttf,.otf,font/woff2,font/woff,font/ttf,font/otf" aria-describedby="theme-font-upload-hint">
    <p class="field-hint" id="theme-font-upload-hint">Checked before it is kept (a broken file is refused with the reason). One file per weight and style; a variable font covers its whole range.</p>
  </div>
  <div class="alert error" role="alert" id="theme-font-error" hidden></div>
</section>`;
}
