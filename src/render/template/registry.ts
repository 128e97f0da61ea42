/**
 * The built-in templates and a registry over them. "Your own card designs" (issue 18) loads the
 * registry from template files; until then the built-ins are its only members. Consumers take a
 * `TemplateRegistry` and read it at request time; only the composition root and tests of the
 * built-ins' own layout import `TEMPLATES`.
 */
import { blog } from './templates/blog.js';
import { product } from './templates/product.js';
import { saas } from './templates/saas.js';
import type { TemplateDefinition, TemplateRegistry } from './types.js';

/** The built-in template names. */
export type BuiltinName = 'blog' | 'product' | 'saas';

/** Every built-in template by name, in display order. */
export const TEMPLATES: Readonly<Record<BuiltinName, TemplateDefinition>> = Object.freeze({
  blog,
  product,
  saas,
});

/** Built-in names in display order. */
export const TEMPLATE_NAMES: readonly BuiltinName[] = Object.freeze(Object.keys(TEMPLATES) as BuiltinName[]);

/** Whether `name` is a built-in template. */
export function isTemplateName(name: string): name is BuiltinName {
  return Object.hasOwn(TEMPLATES, name);
}

/** A registry holding exactly `templates` (in that order), for tests and until files are loaded. */
export function createStaticRegistry(
  templates: readonly TemplateDefinition[] = Object.values(TEMPLATES),
): TemplateRegistry {
  const byName = new Map(templates.map((t) => [t.name, t]));
  const names = Object.freeze(templates.map((t) => t.name));
  const list = Object.freeze([...templates]);
  return {
    get: (name) => byName.get(name),
    names: () => names,
    list: () => list,
    onChange: () => () => {},
    close: async () => {},
  };
}
