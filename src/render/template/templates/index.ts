import type { TemplateDefinition, TemplateName } from '../types.js';
import { blog } from './blog.js';
import { product } from './product.js';
import { saas } from './saas.js';

/** Every built-in template by name. */
export const TEMPLATES: Readonly<Record<TemplateName, TemplateDefinition>> = Object.freeze({
  blog,
  product,
  saas,
});

/** Template names in display order. */
export const TEMPLATE_NAMES: readonly TemplateName[] = Object.freeze(['blog', 'product', 'saas'] as const);
