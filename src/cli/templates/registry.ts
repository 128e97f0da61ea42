import path from 'node:path';
import pino from 'pino';
import { builtinTemplatesDir, operatorTemplatesDir } from '../../render/template/files/area.js';
import { createFileRegistry } from '../../render/template/files/registry.js';
import { TEMPLATE_NAMES } from '../../render/template/registry.js';
import type { TemplateRegistry } from '../../render/template/types.js';
import { loadConfig } from '../../settings.js';

/**
 * The registry the `templates` commands read: the built-ins and the files in `dir` (default: the
 * configured templates directory), loaded once without watching. A broken file is left out with
 * a warning so `templates check` can report the rest. Closed by the caller.
 */
export async function openTemplates(dir: string | undefined): Promise<TemplateRegistry> {
  const config = loadConfig({ logLevel: 'warn' });
  return createFileRegistry({
    dirs: {
      builtin: builtinTemplatesDir(),
      operator: dir !== undefined ? path.resolve(dir) : operatorTemplatesDir(config),
    },
    watch: false,
    skipBroken: true,
    log: pino({ level: 'warn' }, pino.destination(2)),
  });
}

/** Names of the templates that ship with Cardshot (the client's generated types hold these). */
export const BUILTIN_NAMES: readonly string[] = TEMPLATE_NAMES;
