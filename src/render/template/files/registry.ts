import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { ConfigError } from '../../../config/load.js';
import type { TemplateDefinition, TemplateRegistry } from '../types.js';
import { TemplateFileError, where } from './errors.js';
import { loadTemplateFile, templateNameOf } from './load.js';
import { watchTrees } from './watch.js';

export interface FileRegistryOptions {
  /**
   * `builtin`: the templates that ship with Cardshot; `operator`: CARDSHOT_TEMPLATES_DIR. A
   * missing directory holds no templates.
   */
  dirs: { builtin?: string; operator?: string };
  /** Reload on file changes (outside production). */
  watch: boolean;
  /** Leave a broken template out with a warning instead of stopping the start. */
  skipBroken: boolean;
  log: Logger;
  /** With `skipBroken`: told of each file left out at start, instead of a warning in the log. */
  onSkipped?: (file: string, message: string) => void;
  /** Debounce of file events, in ms. */
  debounceMs?: number;
}

/** How long file events settle before a reload: an editor's save is several events. */
const DEBOUNCE_MS = 120;

interface Scan {
  loaded: Map<string, TemplateDefinition>;
  /** Broken files: their message (file:line: …). */
  broken: Map<string, string>;
}

/**
 * The templates from files: loaded and checked at start (a broken one stops the start, naming the
 * file and line, unless `skipBroken`); outside production watched and reloaded, a broken edit
 * keeping the version before it.
 */
export async function createFileRegistry(opts: FileRegistryOptions): Promise<TemplateRegistry> {
  const dirs = [opts.dirs.builtin, opts.dirs.operator].filter(
    (d): d is string => d !== undefined && d !== '',
  );
  let byName = new Map<string, TemplateDefinition>();
  let ordered: TemplateDefinition[] = [];
  let names: readonly string[] = [];
  const listeners = new Set<() => void>();
  // Built-ins' files before the operator's.
  const rank = (t: TemplateDefinition) => (opts.dirs.builtin && inside(t.source, opts.dirs.builtin) ? 0 : 1);

  const first = await scan(dirs, opts.dirs.builtin, new Map());
  for (const [file, message] of first.broken) {
    if (!opts.skipBroken) {
      const more = first.broken.size > 1 ? ` (and ${first.broken.size - 1} more broken template files)` : '';
      throw new ConfigError(
        `${message}${more}; fix it, or start with --skip-broken-templates to leave it out`,
      );
    }
    if (opts.onSkipped) opts.onSkipped(file, message);
    else opts.log.warn({ file }, `template left out (--skip-broken-templates): ${message}`);
  }
  install(first.loaded);

  function install(loaded: Map<string, TemplateDefinition>): void {
    byName = new Map(loaded);
    ordered = [...loaded.values()].sort((a, b) => rank(a) - rank(b) || a.name.localeCompare(b.name));
    names = Object.freeze(ordered.map((t) => t.name));
  }

  let running: Promise<void> = Promise.resolve();
  let closed = false;
  const reload = async () => {
    const previous = new Map(byName);
    const next = await scan(dirs, opts.dirs.builtin, previous);
    if (closed) return;
    for (const [file, message] of next.broken) {
      // A broken edit keeps the version before it, so a half-typed save does not break the page.
      const name = templateNameOf(file);
      const kept = name ? previous.get(name) : undefined;
      if (kept && kept.source === file) next.loaded.set(kept.name, kept);
      opts.log.error(
        { file },
        `template not reloaded${kept ? ' (the previous version stays)' : ''}: ${message}`,
      );
    }
    const changes = changesBetween(previous, next.loaded);
    if (changes.length === 0) return;
    install(next.loaded);
    for (const c of changes) opts.log.info({ template: c.name, file: c.file }, c.message);
    for (const listener of listeners) listener();
  };
  const watcher = opts.watch
    ? watchTrees(dirs, {
        debounceMs: opts.debounceMs ?? DEBOUNCE_MS,
        onChange: () => {
          running = running.then(reload).catch((err) => opts.log.error({ err }, 'template reload failed'));
        },
        onError: (dir, err) =>
          opts.log.warn(
            { dir, err: err.message },
            `${where(dir)} is not watched: edits there need a restart`,
          ),
      })
    : undefined;

  return {
    get: (name) => byName.get(name),
    names: () => names,
    list: () => ordered,
    onChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      closed = true;
      watcher?.close();
      await running;
    },
  };
}

/** What a reload changed, one log line each: `template "event" reloaded from data/templates/event.tsx`. */
function changesBetween(
  before: ReadonlyMap<string, TemplateDefinition>,
  after: ReadonlyMap<string, TemplateDefinition>,
): Array<{ name: string; file: string; message: string }> {
  const out: Array<{ name: string; file: string; message: string }> = [];
  for (const [name, t] of after) {
    const was = before.get(name);
    if (!was) out.push({ name, file: t.source, message: `template "${name}" added from ${where(t.source)}` });
    else if (was.hash !== t.hash || was.source !== t.source) {
      out.push({ name, file: t.source, message: `template "${name}" reloaded from ${where(t.source)}` });
    }
  }
  for (const [name, t] of before) {
    if (!after.has(name)) {
      out.push({ name, file: t.source, message: `template "${name}" removed (${where(t.source)} is gone)` });
    }
  }
  return out;
}

/**
 * Loads every template file of `dirs`. A file whose hash did not change keeps its loaded
 * definition (`previous`), so a reload recompiles but does not rebuild what is unchanged.
 */
async function scan(
  dirs: readonly string[],
  builtinDir: string | undefined,
  previous: ReadonlyMap<string, TemplateDefinition>,
): Promise<Scan> {
  const loaded = new Map<string, TemplateDefinition>();
  const broken = new Map<string, string>();
  const taken = new Map<string, string>();
  for (const dir of dirs) {
    const files = await templateFiles(dir);
    const results = await Promise.allSettled(files.map((f) => loadTemplateFile(f, dir)));
    results.forEach((r, i) => {
      const file = files[i]!;
      const name = templateNameOf(file)!;
      const clash = taken.get(name);
      if (clash !== undefined) {
        // Broken like any other file, not a throw: `templates check` reports it with the rest,
        // a reload logs it and keeps serving, and the start still stops on it.
        const other = builtinDir && inside(clash, builtinDir) ? 'a built-in template' : where(clash);
        broken.set(
          file,
          `${where(file)}: template "${name}" is already defined by ${other}; rename the file (its name is the template's name)`,
        );
        return;
      }
      taken.set(name, file);
      if (r.status === 'rejected') {
        if (!(r.reason instanceof TemplateFileError)) throw r.reason;
        broken.set(file, r.reason.message);
        return;
      }
      const before = previous.get(name);
      loaded.set(name, before && before.hash === r.value.hash && before.source === file ? before : r.value);
    });
  }
  return { loaded, broken };
}

/** The template files (not partials) directly in `dir`, sorted; none when it does not exist. */
async function templateFiles(dir: string): Promise<string[]> {
  try {
    const entries = await readdir(dir, { withFileTypes: true });
    return entries
      .filter((e) => e.isFile() && templateNameOf(e.name) !== undefined)
      .map((e) => path.join(path.resolve(dir), e.name))
      .sort();
  } catch (err) {
    if (isMissing(err)) return [];
    throw err;
  }
}

function inside(file: string, dir: string): boolean {
  return path.resolve(file).startsWith(`${path.resolve(dir)}${path.sep}`);
}

/**
 * No directory there: none, or a file on the way (a data dir that is a file is reported by the
 * storage area, which names the setting).
 */
function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
