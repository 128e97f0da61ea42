/**
 * Watching template directories so that every save is seen, however it is made.
 *
 * Why not `fs.watch(dir, { recursive: true })`: on Linux, Node 20 emulates `recursive` with one
 * inotify watch per file, and a save by rename (`sed -i`, editors' atomic "safe write": write a
 * temporary file, rename it over the template) replaces the inode that watch was on, so every
 * later edit went unseen. A watch on a directory itself reports entries renamed into it, on Node
 * 20 and 24 alike, so each directory of the tree gets its own non-recursive watch, and the set is
 * synced after every burst of events (a new partials folder is watched too).
 *
 * Why the ancestor: a directory that does not exist yet (`data/templates/` before the first
 * `templates new`) cannot be watched, so its nearest existing ancestor is, for the one entry
 * that leads to it; once it appears it is watched like any other.
 */
import { type FSWatcher, watch as fsWatch, readdirSync, statSync } from 'node:fs';
import path from 'node:path';

/** What a watch over a set of directory trees reports and how it stops. */
export interface TreeWatcher {
  close(): void;
}

export interface TreeWatchOptions {
  /** Called once per burst of events that may change a template (after `debounceMs`). */
  onChange: () => void;
  /** Called when a directory cannot be watched (too many watches, permissions). */
  onError: (dir: string, err: Error) => void;
  debounceMs: number;
}

/** Directories deeper than this under a root are not watched (partials live near their template). */
const MAX_DEPTH = 4;
/** A bound on watches per root, so a huge tree dropped in by mistake cannot exhaust inotify. */
const MAX_DIRS = 200;

/** One directory's watch: its inode (a folder moved away and made anew is a new one) and filter. */
interface Watch {
  watcher: FSWatcher;
  ino: number;
  /** The one entry whose events count (an ancestor's or a root's parent), or null for all. */
  only: string | null;
}

/** Watches `roots` (each a directory that may not exist yet) and everything below them. */
export function watchTrees(roots: readonly string[], opts: TreeWatchOptions): TreeWatcher {
  const watches = new Map<string, Watch>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let relevant = false;

  const fire = () => {
    timer = undefined;
    if (closed) return;
    // A root that appeared, was replaced or gained a subfolder is news even if no file in it
    // raised an event yet.
    const moved = sync();
    if (relevant || moved) {
      relevant = false;
      opts.onChange();
    }
  };
  const schedule = (isRelevant: boolean) => {
    if (isRelevant) relevant = true;
    if (timer === undefined) timer = setTimeout(fire, opts.debounceMs);
    else timer.refresh();
  };

  /** Watches exactly the directories wanted now; true when that set (or an inode) changed. */
  function sync(): boolean {
    const wanted = wantedDirs(roots);
    let changed = false;
    for (const [dir, w] of watches) {
      const want = wanted.get(dir);
      if (want === undefined || want !== w.only || inodeOf(dir) !== w.ino) {
        w.watcher.close();
        watches.delete(dir);
        changed = true;
      }
    }
    for (const [dir, only] of wanted) {
      if (!watches.has(dir) && open(dir, only)) changed = true;
    }
    return changed;
  }

  function open(dir: string, only: string | null): boolean {
    try {
      const ino = inodeOf(dir);
      const watcher = fsWatch(dir, { persistent: false }, (_event, file) => {
        if (only === null) schedule(true);
        else if (file === null || String(file) === only) schedule(false);
      });
      // A watched directory that is removed ends its watch; the next sync looks again.
      watcher.on('error', () => {
        watcher.close();
        if (watches.get(dir)?.watcher === watcher) watches.delete(dir);
        schedule(true);
      });
      watches.set(dir, { watcher, ino, only });
      return true;
    } catch (err) {
      if (!isMissing(err)) opts.onError(dir, err as Error);
      return false;
    }
  }

  sync();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const w of watches.values()) w.watcher.close();
      watches.clear();
    },
  };
}

/**
 * Each directory to watch, with the one entry whose events count (null: all). A root that exists:
 * its tree, and its parent for the root's own name (a root moved away and made anew). One that
 * does not: its nearest existing ancestor, for the entry that leads to it. Only that entry
 * matters there: the data dir's own files (the SQLite database, the disk cache) change all the
 * time.
 */
function wantedDirs(roots: readonly string[]): Map<string, string | null> {
  const wanted = new Map<string, string | null>();
  for (const root of roots) {
    if (isDir(root)) for (const dir of treeOf(root)) wanted.set(dir, null);
  }
  for (const root of roots) {
    const { ancestor, next } = isDir(root)
      ? { ancestor: path.dirname(path.resolve(root)), next: path.basename(path.resolve(root)) }
      : nearestExisting(root);
    if (ancestor !== undefined && next !== undefined && !wanted.has(ancestor)) wanted.set(ancestor, next);
  }
  return wanted;
}

/** `root` and its subdirectories (hidden ones and node_modules left out), breadth first, bounded. */
function treeOf(root: string): string[] {
  const out = [path.resolve(root)];
  const depth = new Map([[out[0]!, 0]]);
  for (let i = 0; i < out.length && out.length < MAX_DIRS; i++) {
    const dir = out[i]!;
    const d = depth.get(dir)!;
    if (d >= MAX_DEPTH) continue;
    let entries: string[] = [];
    try {
      entries = readdirSync(dir, { withFileTypes: true })
        .filter((e) => e.isDirectory() && !e.name.startsWith('.') && e.name !== 'node_modules')
        .map((e) => path.join(dir, e.name));
    } catch {
      // Removed between events: the next sync drops it.
    }
    for (const sub of entries.slice(0, MAX_DIRS - out.length)) {
      out.push(sub);
      depth.set(sub, d + 1);
    }
  }
  return out;
}

/** The nearest existing directory above `root`, and the name of its entry that leads to `root`. */
function nearestExisting(root: string): { ancestor?: string; next?: string } {
  let child = path.resolve(root);
  for (;;) {
    const parent = path.dirname(child);
    if (parent === child) return {};
    if (isDir(parent)) return { ancestor: parent, next: path.basename(child) };
    child = parent;
  }
}

function inodeOf(p: string): number {
  try {
    return statSync(p).ino;
  } catch {
    return -1;
  }
}

function isDir(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
