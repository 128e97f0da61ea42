import { type ParseArgsConfig, parseArgs } from 'node:util';
import { SIZES } from '../../render/template/sizes.js';
import type { FieldSpec, TemplateDefinition, TemplateRegistry } from '../../render/template/types.js';

/** The options `render` takes whatever the template. */
const COMMON = {
  template: { type: 'string' },
  brand: { type: 'string' },
  'image-url': { type: 'string' },
  size: { type: 'string' },
  account: { type: 'string' },
  'no-theme': { type: 'boolean' },
  format: { type: 'string' },
  quality: { type: 'string' },
  output: { type: 'string', short: 'o' },
  batch: { type: 'string' },
  'out-dir': { type: 'string' },
  concurrency: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} as const satisfies NonNullable<ParseArgsConfig['options']>;

/** `--accentColor` and `--accent-color` both name the field `accentColor`. */
const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

/** What the command line asked for. */
export interface RenderArgs {
  /** The flat request (`template`, the fields, `brand`, `imageUrl`, `size`, `theme`, `format`, `quality`). */
  input: Record<string, string>;
  template: string | undefined;
  /** `--account <id|email>`: whose brand theme to draw (none without it). */
  account: string | undefined;
  output: string | undefined;
  batch: string | undefined;
  outDir: string | undefined;
  concurrency: string | undefined;
  help: boolean;
}

/**
 * Reads the command line in two passes: the first finds the template (positional or
 * `--template`), the second accepts exactly that template's declared fields as `--<field>`. An
 * unknown option is refused with the template's own list.
 */
export function parseRenderArgs(argv: string[], registry: TemplateRegistry): RenderArgs {
  const loose = parseArgs({ args: argv, allowPositionals: true, strict: false, options: COMMON });
  const named = typeof loose.values.template === 'string' ? loose.values.template : undefined;
  const template = named ?? loose.positionals[0];
  const def = template === undefined ? undefined : registry.get(template);
  const fieldOptions: Record<string, { type: 'string' }> = {};
  for (const name of Object.keys(def?.fields ?? {})) {
    fieldOptions[name] = { type: 'string' };
    fieldOptions[kebab(name)] = { type: 'string' };
  }
  let values: Record<string, string | boolean | undefined>;
  let positionals: string[];
  try {
    ({ values, positionals } = parseArgs({
      args: argv,
      allowPositionals: true,
      options: { ...COMMON, ...fieldOptions },
    }) as { values: Record<string, string | boolean | undefined>; positionals: string[] });
  } catch (err) {
    // Node's own wording goes on about positionals; the option and the valid ones matter here.
    const message = (err as Error).message;
    const unknown = /^Unknown option '([^']+)'/.exec(message);
    const known = def ? `; ${def.name} takes: ${fieldFlags(def).join(', ')}` : '';
    throw new Error(unknown ? `unknown option ${unknown[1]}${known}` : message.split('\n')[0]);
  }
  if (named !== undefined && positionals.length > 0) {
    throw new Error(`give the template once: --template ${named} or "${positionals[0]}", not both`);
  }
  const str = (key: string) => (typeof values[key] === 'string' ? (values[key] as string) : undefined);
  const input: Record<string, string> = { template: template ?? '' };
  for (const name of Object.keys(def?.fields ?? {})) {
    const value = str(name) ?? str(kebab(name));
    if (value !== undefined) input[name] = value;
  }
  const request: Array<[string, string | undefined]> = [
    ['brand', str('brand')],
    ['imageUrl', str('image-url')],
    ['size', str('size')],
    ['theme', values['no-theme'] === true ? 'none' : undefined],
    ['format', str('format')],
    ['quality', str('quality')],
  ];
  for (const [key, value] of request) if (value !== undefined) input[key] = value;
  return {
    input,
    template,
    account: str('account'),
    output: str('output'),
    batch: str('batch'),
    outDir: str('out-dir'),
    concurrency: str('concurrency'),
    help: values.help === true,
  };
}

function fieldFlags(def: TemplateDefinition): string[] {
  const flags = Object.keys(def.fields).map((n) => `--${kebab(n)}`);
  if (def.uses.brand) flags.push('--brand');
  if (def.uses.artwork) flags.push('--image-url');
  return [...flags, '--size', ...(def.uses.theme ? ['--account', '--no-theme'] : [])];
}

function describeField(spec: FieldSpec): string {
  const need = spec.required && spec.default === undefined ? 'required' : 'optional';
  const dflt = spec.default !== undefined ? `, default ${spec.default}` : '';
  const doc = spec.description ? `  ${spec.description}` : '';
  switch (spec.type) {
    case 'text':
      return `text, ${need}, at most ${spec.maxLength} characters${dflt}${doc}`;
    case 'color':
      return `colour #RRGGBB, ${need}${dflt}${doc}`;
    case 'number':
      return `${spec.integer ? 'whole number' : 'number'} ${spec.min}–${spec.max}, ${need}${dflt}${doc}`;
    case 'choice':
      return `one of ${spec.options.join(', ')}, ${need}${dflt}${doc}`;
  }
}

/** `render --help --template NAME`: the template's own options, from its declaration. */
export function templateHelp(def: TemplateDefinition): string {
  const rows: Array<[string, string]> = Object.entries(def.fields).map(([n, s]) => [
    `--${kebab(n)}`,
    describeField(s),
  ]);
  if (def.uses.brand) rows.push(['--brand', 'text, optional, at most 60 characters  Brand label.']);
  if (def.uses.artwork) rows.push(['--image-url', 'http(s) URL, optional  The artwork.']);
  const sizes = def.sizes.map((s) => `${s} (${SIZES[s].width}×${SIZES[s].height})`).join(', ');
  rows.push(['--size', `one of ${sizes}; default ${def.sizes[0]}`]);
  if (def.uses.theme) {
    rows.push(['--account', "id or email: draw that account's brand theme (without it, none is drawn)"]);
    rows.push(['--no-theme', "the template's own look, not the account's theme"]);
  }
  const width = Math.max(...rows.map(([f]) => f.length));
  return [
    `${def.name}: ${def.description}`,
    '',
    ...rows.map(([flag, text]) => `  ${flag.padEnd(width)}  ${text}`),
    '',
    `In a batch file, use the field names as columns: template, ${[...Object.keys(def.fields), ...(def.uses.brand ? ['brand'] : []), ...(def.uses.artwork ? ['imageUrl'] : []), 'size'].join(', ')}.`,
  ].join('\n');
}
