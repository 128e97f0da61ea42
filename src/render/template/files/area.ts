/**
 * The template registry as an area: template files loaded (and, outside production, watched)
 * before the areas that read template names (plans, the renderer, the request parser).
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Logger } from 'pino';
import { type Area, startArea } from '../../../area.js';
import type { StorageConfig } from '../../../storage/settings.js';
import type { TemplateConfig } from '../settings.js';
import type { TemplateRegistry } from '../types.js';
import { templateNameOf } from './load.js';
import { createFileRegistry } from './registry.js';

/** The templates that ship with Cardshot: `templates/` at the package's root (copied into the image). */
export function builtinTemplatesDir(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'package.json'))) {
    const up = path.dirname(dir);
    if (up === dir) break;
    dir = up;
  }
  return path.join(dir, 'templates');
}

/** The operator's directory: CARDSHOT_TEMPLATES_DIR, else `<dataDir>/templates`. */
export function operatorTemplatesDir(
  config: Pick<TemplateConfig, 'templatesDir'> & Pick<StorageConfig, 'dataDir'>,
): string {
  return path.resolve(
    config.templatesDir !== '' ? config.templatesDir : path.join(config.dataDir, 'templates'),
  );
}

export function createTemplateFilesArea(
  config: Pick<TemplateConfig, 'templatesDir' | 'skipBrokenTemplates'> &
    Pick<StorageConfig, 'dataDir'> & { nodeEnv: string },
  deps: { log: Logger; builtinDir?: string; watch?: boolean },
): Promise<Area<TemplateRegistry>> {
  return startArea(deps.log, async (parts) => {
    const registry = await createFileRegistry({
      dirs: { builtin: deps.builtinDir ?? builtinTemplatesDir(), operator: operatorTemplatesDir(config) },
      watch: deps.watch ?? config.nodeEnv !== 'production',
      skipBroken: config.skipBrokenTemplates,
      log: deps.log,
    });
    parts.add('template files', () => registry.close());
    return { service: registry };
  });
}

/**
 * The template names without loading any file (built-ins, then each directory's template file
 * names): what the admin CLI and the doctor check plans against, in milliseconds.
 */
export function templateNamesOnDisk(
  config: Pick<TemplateConfig, 'templatesDir'> & Pick<StorageConfig, 'dataDir'>,
): string[] {
  const names: string[] = [];
  for (const dir of [builtinTemplatesDir(), operatorTemplatesDir(config)]) {
    let files: string[] = [];
    try {
      files = readdirSync(dir).sort();
    } catch {
      // A missing directory holds no templates.
    }
    for (const f of files) {
      const name = templateNameOf(f);
      if (name !== undefined && !names.includes(name)) names.push(name);
    }
  }
  return names;
}

/** The operator's fonts directory: CARDSHOT_FONTS_DIR, else `fonts` in the operator's templates directory. */
export function operatorFontsDir(
  config: Pick<TemplateConfig, 'templatesDir' | 'fontsDir'> & Pick<StorageConfig, 'dataDir'>,
): string {
  return config.fontsDir !== '' ? config.fontsDir : path.join(operatorTemplatesDir(config), 'fonts');
}
