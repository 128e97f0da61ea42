import path from 'node:path';
import pino from 'pino';
import { builtinTemplatesDir, operatorTemplatesDir } from '../../render/template/files/area.js';
import { templateNameOf } from '../../render/template/files/load.js';
import { createFileRegistry } from '../../render/template/files/registry.js';
import { TEMPLATE_NAMES } from '../../render/template/registry.js';
import type { TemplateRegistry } from '../../render/template/types.js';
import { loadCliConfig } from '../data-dir.js';

/** A template file that did not load: its name (from the file name), file and `file:line:col: …` message. */
export interface BrokenTemplate {
  template: string;
  source: string;
  message: string;
}

/** What the `templates` commands read: the templates that loaded, and the files that did not. */
export interface OpenedTemplates {
  registry: TemplateRegistry;
  broken: BrokenTemplate[];
}

/**
 * The registry the `templates` commands read: the built-ins and the files in `dir` (default: the
 * configured templates directory), loaded once without watching. A broken file is left out and
 * returned in `broken`, so `templates check` reports it with the rest. Closed by the caller.
 */
export async function openTemplates(dir: string | undefined): Promise<OpenedTemplates> {
  // Reading only: where no server's data dir is found, the configured one (built-ins alone).
  const config = loadCliConfig(process.stderr, { refuse: false });
  const broken: BrokenTemplate[] = [];
  const registry = await createFileRegistry({
    dirs: {
      builtin: builtinTemplatesDir(),
      operator: dir !== undefined ? path.resolve(dir) : operatorTemplatesDir(config),
    },
    watch: false,
    skipBroken: true,
    log: pino({ level: 'warn' }, pino.destination(2)),
    onSkipped: (file, message) =>
      broken.push({ template: templateNameOf(file) ?? path.basename(file), source: file, message }),
  });
  return { registry, broken };
}

/** Names of the templates that ship with Cardshot (the client's generated types hold these). */
export const BUILTIN_NAMES: readonly string[] = TEMPLATE_NAMES;
