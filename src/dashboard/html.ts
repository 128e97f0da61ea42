/**
 * A tagged template for server-rendered HTML that escapes every interpolated value unless it
 * is already `Html` (made by `html` itself or, for trusted constants only, `raw`). Arrays are
 * joined, `null`, `undefined` and `false` render nothing, so conditionals read naturally:
 * html`<p>${user.name}</p>${error && html`<p class="error">${error}</p>`}`.
 */
export class Html {
  constructor(readonly value: string) {}
  toString(): string {
    return this.value;
  }
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for an HTML element or a quoted attribute value. */
export function escapeHtml(s: string): string {
  return s.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

function render(part: Part): string {
  if (part === null || part === undefined || part === false || part === true) return '';
  if (part instanceof Html) return part.value;
  if (Array.isArray(part)) return part.map(render).join('');
  return escapeHtml(String(part));
}

/** Builds escaped HTML from a template literal. */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0]!;
  for (let i = 0; i < values.length; i++) out += render(values[i]) + strings[i + 1]!;
  return new Html(out);
}

/** Marks a trusted constant (never user input) as HTML. */
export function raw(s: string): Html {
  return new Html(s);
}
