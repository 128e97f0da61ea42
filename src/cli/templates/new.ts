import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { AppError } from '../../errors.js';
import { operatorTemplatesDir } from '../../render/template/files/area.js';
import { TEMPLATE_NAMES } from '../../render/template/registry.js';
import { loadConfig } from '../../settings.js';
import { packageRoot } from '../../version.js';
import { UsageError } from '../admin.js';
import { loadCliConfig } from '../data-dir.js';

/** A template's name, as the loader requires it of a file's base name. */
const NAME = /^[a-z][a-z0-9-]{0,39}$/;

/** The documented starter `templates new` copies (shipped as source, read at run time). */
export const STARTER_FILE = 'src/render/template/starter/starter.tsx';

/**
 * Where templates live when no --dir is given: the server's data dir found as the admin commands
 * find it, so `templates new` run in another project refuses (naming where it looked) rather
 * than writing into a new `./data` no server reads.
 */
function defaultDir(): string {
  const config = loadConfig({ logLevel: 'warn' });
  if (config.templatesDir !== '') return operatorTemplatesDir(config);
  return operatorTemplatesDir(loadCliConfig(process.stderr));
}

/**
 * Writes `<dir>/<name>.tsx` from the starter, with its name filled in; refuses a name the loader
 * would not load and never overwrites a file. Returns the path written.
 */
export async function scaffoldTemplate(name: string, dir: string | undefined): Promise<string> {
  if (!NAME.test(name)) {
    throw new UsageError(
      `"${name.slice(0, 60)}" is not a template name: use lower-case letters, digits and dashes, starting with a letter, at most 40 characters (e.g. event, launch-2)`,
    );
  }
  if (TEMPLATE_NAMES.includes(name)) {
    // The loader would refuse the file (and the next start would stop on it).
    throw new AppError(
      'bad_request',
      `"${name}" is a built-in template's name (${TEMPLATE_NAMES.join(', ')}); choose another name`,
    );
  }
  const folder = dir ?? defaultDir();
  const target = path.join(folder, `${name}.tsx`);
  // NAME.jsx defines the same template: a second file of that name would not load.
  const other = path.join(folder, `${name}.jsx`);
  if (existsSync(other)) throw exists(other);
  const starter = await readFile(path.join(packageRoot(), STARTER_FILE), 'utf8');
  await mkdir(path.dirname(target), { recursive: true });
  try {
    // `wx`: fails if the file exists, with no window between a check and the write.
    await writeFile(target, starter.replaceAll('__NAME__', name), { flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      throw exists(target);
    }
    throw err;
  }
  return target;
}

function exists(file: string): AppError {
  return new AppError('bad_request', `${file} already exists; choose another name or remove it first`);
}
