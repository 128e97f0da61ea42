/**
 * The built-in templates: ordinary template files in `templates/` at the package root, loaded by
 * the same loader as an operator's. The server's registry (files/area.ts) loads them with the
 * operator's files; `loadBuiltins()` is for callers that need the built-ins alone (the doctor,
 * tests, benchmarks, golden images).
 */
import { readdirSync } from 'node:fs';
import pino from 'pino';
import { builtinTemplatesDir } from './files/area.js';
import { templateNameOf } from './files/load.js';
import { createFileRegistry } from './files/registry.js';
import type { TemplateDefinition, TemplateRegistry } from './types.js';

/**
 * The built-in template names, in display order, read from the file names (no file is loaded):
 * what plans, the request's docs and the dashboard list without waiting for the loader.
 */
export const TEMPLATE_NAMES: readonly string[] = Object.freeze(
  readdirSync(builtinTemplatesDir())
    .map(templateNameOf)
    .filter((n): n is string => n !== undefined)
    .sort(),
);

let builtins: Promise<TemplateRegistry> | undefined;

/**
 * The built-ins loaded with the real loader (compiled, checked, one card built per size), once per
 * process: ~tens of ms. A broken built-in rejects, naming its file and line.
 */
export function loadBuiltins(): Promise<TemplateRegistry> {
  builtins ??= createFileRegistry({
    dirs: { builtin: builtinTemplatesDir() },
    watch: false,
    skipBroken: false,
    log: pino({ level: 'warn' }, pino.destination(2)),
  });
  return builtins;
}

/** A registry holding exactly `templates` (in that order): tests' hand-made and mixed registries. */
export function createStaticRegistry(templates: readonly TemplateDefinition[]): TemplateRegistry {
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
