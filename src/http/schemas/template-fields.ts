/**
 * The card routes' request schemas, generated from the template registry: the JSON body is a
 * `oneOf` with one variant per template (discriminated by `template`), each listing its own
 * declared fields with their limits, the sizes it lays out at, and `brand`, `imageUrl` and
 * `theme` only where it draws them; the GET parameters are the union, each saying which
 * templates take it. For documentation only: the hand-written parser validates (documentOnly).
 */
import type { FieldSpec, TemplateDefinition, TemplateRegistry } from '../../render/template/types.js';

type Json = Record<string, unknown>;

/** The request-level inputs beside a template's fields, as documented. */
const BRAND: Json = {
  type: 'string',
  maxLength: 60,
  description: 'Brand label (the publication, product or company name).',
  examples: ['Acme Engineering'],
};
const IMAGE_URL: Json = {
  type: 'string',
  maxLength: 2048,
  format: 'uri',
  description: 'Public http(s) address of the artwork (PNG, JPEG, WebP, GIF or AVIF).',
  examples: ['https://example.com/chair.jpg'],
};
const THEME: Json = {
  type: 'string',
  enum: ['none'],
  description: "`none`: the template's own look instead of the account's brand theme.",
};
const COLOR_PATTERN = '^#([0-9A-Fa-f]{3}|[0-9A-Fa-f]{6})$';

/** The JSON Schema of one declared field. */
export function fieldSchema(spec: FieldSpec): Json {
  const doc = spec.description ? { description: spec.description } : {};
  const dflt = spec.default !== undefined ? { default: spec.default } : {};
  switch (spec.type) {
    case 'text':
      return { type: 'string', maxLength: spec.maxLength, ...doc, ...dflt };
    case 'color':
      return {
        type: 'string',
        pattern: COLOR_PATTERN,
        ...doc,
        ...dflt,
        examples: [spec.default ?? '#6366F1'],
      };
    case 'number':
      return {
        type: spec.integer ? 'integer' : 'number',
        minimum: spec.min,
        maximum: spec.max,
        ...doc,
        ...dflt,
      };
    case 'choice':
      return { type: 'string', enum: [...spec.options], ...doc, ...dflt };
  }
}

const isRequired = (spec: FieldSpec) => spec.required === true && spec.default === undefined;

/** A template's component name under `components.schemas`. */
export const variantName = (name: string) => `CardFields-${name}`;

/** One template's body: its fields, the inputs it draws, its sizes, and the output options. */
function variantSchema(def: TemplateDefinition, output: Json): Json {
  const fields = Object.fromEntries(Object.entries(def.fields).map(([n, s]) => [n, fieldSchema(s)]));
  return {
    type: 'object',
    description: def.description,
    required: [
      'template',
      ...Object.entries(def.fields)
        .filter(([, s]) => isRequired(s))
        .map(([n]) => n),
    ],
    properties: {
      template: { type: 'string', enum: [def.name], description: def.description },
      ...fields,
      ...(def.uses.brand ? { brand: BRAND } : {}),
      ...(def.uses.artwork ? { imageUrl: IMAGE_URL } : {}),
      size: {
        type: 'string',
        enum: [...def.sizes],
        default: def.sizes[0],
        description: `Card size: ${def.sizes.join(', ')} (og 1200×630, twitter 1200×675, square 1080×1080, linkedin 1200×627, story 1080×1920).`,
      },
      ...(def.uses.theme ? { theme: THEME } : {}),
      ...output,
    },
    additionalProperties: false,
  };
}

/** An example request for `def`: its fields filled, as the docs show it. */
export function exampleBody(def: TemplateDefinition): Json {
  const out: Json = { template: def.name };
  let texts = 0;
  for (const [name, spec] of Object.entries(def.fields)) {
    if (spec.type === 'text') {
      const sample = texts++ === 0 ? 'How we cut our build time in half' : 'A field guide to caching in CI';
      out[name] = spec.default ?? [...sample].slice(0, spec.maxLength).join('').trim();
    } else if (spec.type === 'color') out[name] = spec.default ?? '#6366F1';
    else if (spec.type === 'number') out[name] = spec.default ?? spec.min;
    else out[name] = spec.default ?? spec.options[0];
  }
  if (def.uses.brand) out.brand = 'Acme Engineering';
  return out;
}

/** The body schemas: one component per template, and the `oneOf` the request body points at. */
export function templateBodySchemas(
  registry: TemplateRegistry,
  output: Json,
): { components: Json; body: Json } {
  const defs = registry.list();
  const components = Object.fromEntries(defs.map((d) => [variantName(d.name), variantSchema(d, output)]));
  const ref = (name: string) => `#/components/schemas/${variantName(name)}`;
  return {
    components,
    body: {
      oneOf: defs.map((d) => ({ $ref: ref(d.name) })),
      discriminator: {
        propertyName: 'template',
        mapping: Object.fromEntries(defs.map((d) => [d.name, ref(d.name)])),
      },
    },
  };
}

/** Which templates declare each field (or draw brand / imageUrl / theme), in display order. */
function takers(defs: readonly TemplateDefinition[]): Map<string, TemplateDefinition[]> {
  const by = new Map<string, TemplateDefinition[]>();
  const add = (name: string, def: TemplateDefinition) => by.set(name, [...(by.get(name) ?? []), def]);
  for (const def of defs) {
    for (const name of Object.keys(def.fields)) add(name, def);
  }
  return by;
}

/** Distinct schemas (by their JSON) of the field `name` across `defs`. */
function unionSchema(name: string, defs: readonly TemplateDefinition[]): Json {
  const seen = new Map<string, Json>();
  for (const def of defs) {
    const schema = fieldSchema(def.fields[name]!);
    delete schema.description;
    seen.set(JSON.stringify(schema), schema);
  }
  const list = [...seen.values()];
  return list.length === 1 ? list[0]! : { anyOf: list };
}

/**
 * The GET query parameters: `template`, each declared field once (required where every
 * template requires it), then brand, imageUrl, size and theme as far as some template takes
 * them, then `output` (format, quality, v).
 */
export function templateQueryParameters(registry: TemplateRegistry, output: Record<string, Json>): Json[] {
  const defs = registry.list();
  const names = defs.map((d) => d.name);
  const param = (name: string, schema: Json, description: string, required = false): Json => ({
    in: 'query',
    name,
    required,
    description,
    schema,
  });
  const who = (list: readonly TemplateDefinition[]) =>
    list.length === defs.length ? 'every template' : list.map((d) => d.name).join(', ');
  const params: Json[] = [
    param('template', { type: 'string', enum: names }, `The template: ${names.join(', ')}.`, true),
  ];
  for (const [name, list] of takers(defs)) {
    const first = list[0]!.fields[name]!;
    const required = list.length === defs.length && list.every((d) => isRequired(d.fields[name]!));
    const text = `${first.description ? `${first.description.replace(/\.?$/, '.')} ` : ''}Taken by ${who(list)}.`;
    params.push(param(name, unionSchema(name, list), text, required));
  }
  const drawing = (key: 'brand' | 'artwork' | 'theme') => defs.filter((d) => d.uses[key]);
  const optional: Array<[string, Json, TemplateDefinition[]]> = [
    ['brand', BRAND, drawing('brand')],
    ['imageUrl', IMAGE_URL, drawing('artwork')],
    ['theme', THEME, drawing('theme')],
  ];
  for (const [name, schema, list] of optional) {
    const { description, ...rest } = schema;
    if (list.length > 0) params.push(param(name, rest, `${description} Drawn by ${who(list)}.`));
  }
  const sizes = [...new Set(defs.flatMap((d) => d.sizes))];
  params.push(
    param(
      'size',
      { type: 'string', enum: sizes },
      `Card size, one the template lays out at (default its first, og for the built-ins): ${defs.map((d) => `${d.name}: ${d.sizes.join(', ')}`).join('; ')}.`,
    ),
  );
  for (const [name, schema] of Object.entries(output)) {
    const { description, ...rest } = schema;
    params.push(param(name, rest, String(description ?? '')));
  }
  return params;
}
