/**
 * The built-in templates (`templates/*.tsx`) loaded with the real loader, once per test file
 * (top-level await: tests read them synchronously, as they read the TS modules they once were).
 */
import { loadBuiltins } from '../../src/render/template/registry.js';
import type { TemplateDefinition, TemplateRegistry } from '../../src/render/template/types.js';

/** The built-in template names. */
export type BuiltinName = 'blog' | 'product' | 'saas';

/** A registry of the built-ins alone. */
export const BUILTINS: TemplateRegistry = await loadBuiltins();

/** Built-in names in display order. */
export const TEMPLATE_NAMES = BUILTINS.names() as readonly BuiltinName[];

/** Every built-in by name. */
export const TEMPLATES = Object.fromEntries(BUILTINS.list().map((t) => [t.name, t])) as Readonly<
  Record<BuiltinName, TemplateDefinition>
>;
