/**
 * The template registry: every template by name, and the one place template names come from.
 * The request parser, the renderer, the card service, the OpenAPI schema and the dashboard read
 * it; plans are given its names by the composition root (auth/ knows no templates). "Your own
 * card designs" (issue 18) fills it from template files.
 */
import { blog } from './templates/blog.js';
import { product } from './templates/product.js';
import { saas } from './templates/saas.js';
import type { TemplateDefinition, TemplateName } from './types.js';

/** Every template by name, in display order. */
export const TEMPLATES: Readonly<Record<TemplateName, TemplateDefinition>> = Object.freeze({
  blog,
  product,
  saas,
});

/** Template names in display order: the registry's keys, which its type makes exactly TemplateName. */
export const TEMPLATE_NAMES: readonly TemplateName[] = Object.freeze(
  Object.keys(TEMPLATES) as TemplateName[],
);

/** Whether `name` is a template of the registry. */
export function isTemplateName(name: string): name is TemplateName {
  return Object.hasOwn(TEMPLATES, name);
}
