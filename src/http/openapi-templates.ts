/**
 * The OpenAPI document's card request schemas follow the template registry: templates are
 * loaded from files and, outside production, reloaded while the server runs, so the schemas are
 * written into the document when it is asked for and rebuilt after the registry changes, never
 * fixed when the routes were registered.
 */
import type { TemplateRegistry } from '../render/template/types.js';
import { OUTPUT_PROPERTIES, TEMPLATE_VERSION_PARAM } from './schemas/render.js';
import { exampleBody, templateBodySchemas, templateQueryParameters } from './schemas/template-fields.js';

type Json = Record<string, unknown>;
type Operation = { parameters?: Json[]; requestBody?: { content?: Record<string, Json> } };

/** Plain JSON of TypeBox schemas (their symbols dropped). */
const plain = <T>(value: T): Json => JSON.parse(JSON.stringify(value)) as Json;

export interface TemplateDocs {
  /** `doc` with the card schemas of the registry as it is now (a copy; `doc` is not changed). */
  apply<T extends object>(doc: T): T;
  /** Stops following the registry. */
  close(): void;
}

/** Writes the registry's templates into OpenAPI documents, remembering the result until a reload. */
export function createTemplateDocs(registry: TemplateRegistry): TemplateDocs {
  // The document swagger builds is cached by it, so one copy per (document, registry state).
  let memo = new WeakMap<object, object>();
  const unsubscribe = registry.onChange(() => {
    memo = new WeakMap();
  });
  return {
    apply(doc) {
      let done = memo.get(doc);
      if (!done) {
        done = withTemplates(structuredClone(doc) as Json, registry);
        memo.set(doc, done);
      }
      return done as typeof doc;
    },
    close: unsubscribe,
  };
}

function withTemplates(doc: Json, registry: TemplateRegistry): Json {
  const body = plain(OUTPUT_PROPERTIES);
  const { components, body: schema } = templateBodySchemas(registry, body);
  const comps = (doc.components ?? {}) as Json;
  doc.components = comps;
  comps.schemas = { ...((comps.schemas as Json | undefined) ?? {}), ...components };
  const ops = ((doc.paths as Json | undefined)?.['/render/template'] ?? {}) as Record<string, Operation>;
  const json = ops.post?.requestBody?.content?.['application/json'];
  if (json) {
    json.schema = schema;
    json.examples = Object.fromEntries(
      registry.list().map((d) => [d.name, { summary: d.description, value: exampleBody(d) }]),
    );
  }
  const query = templateQueryParameters(registry, {
    ...(body as Record<string, Json>),
    [TEMPLATE_VERSION_PARAM.name]: plain(TEMPLATE_VERSION_PARAM.schema),
  });
  for (const method of ['get', 'head']) {
    const op = ops[method];
    if (op) op.parameters = [...query, ...(op.parameters ?? []).filter((p) => p.in !== 'query')];
  }
  return doc;
}
