import { createStaticRegistry, TEMPLATE_NAMES } from '../../render/template/registry.js';
import type { TemplateRegistry } from '../../render/template/types.js';
import { UsageError } from '../admin.js';

/**
 * The registry the `templates` commands read: the built-ins and the files in `dir` (default: the
 * configured templates directory). Closed by the caller.
 */
export async function openTemplates(dir: string | undefined): Promise<TemplateRegistry> {
  // registry: wired to the file registry at merge
  // (createFileRegistry({ dirs: [builtinsDir, dir ?? config.templatesDir], watch: false, … })).
  if (dir !== undefined) {
    throw new UsageError('--dir needs the template file loader, which this build does not have yet');
  }
  return createStaticRegistry();
}

/** Names of the templates that ship with Cardshot (the client's generated types hold these). */
export const BUILTIN_NAMES: readonly string[] = TEMPLATE_NAMES;
