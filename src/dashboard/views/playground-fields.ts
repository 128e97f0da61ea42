import { SIZES } from '../../render/template/sizes.js';
import type { FieldSpec, TemplateDefinition } from '../../render/template/types.js';
import { type Html, html } from '../html.js';

/**
 * The playground's inputs for one template, generated from its declaration: a text box per
 * text field (with its maximum length), a colour picker, a number box with its range, a select
 * for a choice, then brand and image URL where the template draws them, its sizes, and "use my
 * theme" where it draws one.
 */
export function templateFields(
  def: TemplateDefinition,
  values: Record<string, string>,
  useTheme: boolean,
): Html {
  return html`${Object.entries(def.fields).map(([name, spec]) => declaredField(name, spec, values[name] ?? ''))}
${def.uses.brand ? brandField(values.brand ?? '') : ''}
${def.uses.artwork ? imageField(values.imageUrl ?? '') : ''}
${sizeField(def, values.size ?? '')}
${def.uses.theme ? themeField(useTheme) : ''}`;
}

/** Form ids the page itself uses; a field with one of these names gets a prefixed id. */
const TAKEN = new Set([
  'template',
  'key',
  'status',
  'error',
  'preview',
  'meta',
  'curl',
  'form',
  'fields',
  'size',
  'theme',
]);
const idOf = (name: string) => (TAKEN.has(name) ? `pg-field-${name}` : `pg-${name}`);

/** `accentColor` → "Accent color". */
function labelOf(name: string): string {
  const words = name.replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

function optional(spec: FieldSpec): Html | string {
  return spec.required && spec.default === undefined ? '' : html` <span class="optional">optional</span>`;
}

function hint(id: string, text: string | undefined): Html | string {
  return text ? html`<p class="field-hint" id="${id}-hint">${text}</p>` : '';
}

function declaredField(name: string, spec: FieldSpec, value: string): Html {
  const id = idOf(name);
  const described = spec.description ? html`aria-describedby="${id}-hint"` : '';
  const label = html`<label for="${id}">${labelOf(name)}${optional(spec)}</label>`;
  return html`<div class="field">
  ${label}
  ${control(id, name, spec, value, described)}
  ${hint(id, spec.description)}
</div>`;
}

function control(id: string, name: string, spec: FieldSpec, value: string, described: Html | string): Html {
  const required = spec.required && spec.default === undefined ? html`required` : '';
  switch (spec.type) {
    case 'text':
      // Headlines get room for two lines; short labels a single line.
      return spec.maxLength > 80
        ? html`<textarea id="${id}" name="${name}" rows="2" maxlength="${spec.maxLength}" ${required} ${described}>${value}</textarea>`
        : html`<input id="${id}" name="${name}" type="text" maxlength="${spec.maxLength}" value="${value}" ${required} ${described}>`;
    case 'color':
      return html`<input id="${id}" name="${name}" type="color" value="${pickerColor(value, spec.default)}" ${described}>`;
    case 'number':
      return html`<input id="${id}" name="${name}" type="number" inputmode="${spec.integer ? 'numeric' : 'decimal'}" min="${spec.min}" max="${spec.max}" step="${spec.integer ? '1' : 'any'}" value="${value}" ${required} ${described}>`;
    case 'choice':
      return html`<select id="${id}" name="${name}" ${described}>
        ${spec.required || spec.default !== undefined ? '' : html`<option value="">(none)</option>`}
        ${spec.options.map((o) => html`<option value="${o}" ${o === (value || spec.default) ? html`selected` : ''}>${o}</option>`)}
      </select>`;
  }
}

/** A colour picker holds `#rrggbb` only: `#RGB` is spelled out, anything else falls back. */
function pickerColor(value: string, fallback: string | undefined): string {
  const six = (c: string) =>
    /^#[0-9a-f]{3}$/i.test(c) ? `#${[...c.slice(1)].map((d) => d + d).join('')}` : c;
  for (const c of [value, fallback ?? '']) if (/^#[0-9a-f]{6}$/i.test(six(c))) return six(c).toLowerCase();
  return '#000000';
}

function brandField(value: string): Html {
  return html`<div class="field">
  <label for="pg-brand">Brand <span class="optional">optional</span></label>
  <input id="pg-brand" name="brand" type="text" maxlength="60" value="${value}" aria-describedby="pg-brand-hint">
  <p class="field-hint" id="pg-brand-hint">Drawn by this template.</p>
</div>`;
}

function imageField(value: string): Html {
  return html`<div class="field">
  <label for="pg-image">Image URL <span class="optional">optional</span></label>
  <input id="pg-image" name="imageUrl" type="url" maxlength="2048" placeholder="https://example.com/product.jpg" value="${value}" aria-describedby="pg-image-hint">
  <p class="field-hint" id="pg-image-hint">Drawn by this template (public http or https address).</p>
</div>`;
}

function sizeField(def: TemplateDefinition, value: string): Html {
  const chosen = def.sizes.includes(value as never) ? value : def.sizes[0];
  return html`<div class="field">
  <label for="pg-size">Size</label>
  <select id="pg-size" name="size" ${def.sizes.length === 1 ? html`aria-describedby="pg-size-hint"` : ''}>
    ${def.sizes.map((s) => html`<option value="${s}" ${s === chosen ? html`selected` : ''}>${s} · ${SIZES[s].width} × ${SIZES[s].height}</option>`)}
  </select>
  ${def.sizes.length === 1 ? html`<p class="field-hint" id="pg-size-hint">The only size this template lays out.</p>` : ''}
</div>`;
}

function themeField(on: boolean): Html {
  return html`<div class="check">
  <input type="hidden" name="useTheme" value="off">
  <input id="pg-theme" name="useTheme" type="checkbox" value="on" ${on ? html`checked` : ''} aria-describedby="pg-theme-hint">
  <label for="pg-theme">Use my theme</label>
  <p class="field-hint" id="pg-theme-hint">Your brand colours, font and logo. Off sends theme=none: the template's own look.</p>
</div>`;
}
