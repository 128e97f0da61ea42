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

/** Watches `roots` (each a directory that may not exist yet) and everything below them. */
export function watchTrees(roots: readonly string[], opts: TreeWatchOptions): TreeWatcher {
  const watchers = new Map<string, FSWatcher>();
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  let relevant = false;

  const fire = () => {
    timer = undefined;
    if (closed) return;
    const before = new Set(watchers.keys());
    sync();
    // A root that appeared (or a subfolder) is news even if its own files raised no event yet.
    const grew = [...watchers.keys()].some((d) => !before.has(d));
    if (relevant || grew) {
      relevant = false;
      opts.onChange();
    }
  };
  const schedule = (isRelevant: boolean) => {
    if (isRelevant) relevant = true;
    if (timer === undefined) timer = setTimeout(fire, opts.debounceMs);
    else timer.refresh();
  };

  /** Watch exactly the directories wanted now: each root's tree, or the ancestor it will appear in. */
  function sync(): void {
    const wanted = wantedDirs(roots);
    for (const [dir, w] of watchers) {
      if (!wanted.has(dir)) {
        w.close();
        watchers.delete(dir);
      }
    }
    for (const [dir, accepts] of wanted) {
      if (!watchers.has(dir)) open(dir, accepts);
    }
  }

  function open(dir: string, accepts: (file: string | null) => boolean): void {
    try {
      const w = fsWatch(dir, { persistent: false }, (_event, file) => {
        if (accepts(file === null ? null : String(file))) schedule(isDirTree(dir, roots));
      });
      // A watched directory that is removed ends its watch; the next sync looks again.
      w.on('error', () => {
        w.close();
        if (watchers.get(dir) === w) watchers.delete(dir);
        schedule(true);
      });
      watchers.set(dir, w);
    } catch (err) {
      if (!isMissing(err)) opts.onError(dir, err as Error);
    }
  }

  sync();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      for (const w of watchers.values()) w.close();
      watchers.clear();
    },
  };
}

/** Each directory to watch, with which of its entries' events count. */
function wantedDirs(roots: readonly string[]): Map<string, (file: string | null) => boolean> {
  const wanted = new Map<string, (file: string | null) => boolean>();
  for (const root of roots) {
    if (isDir(root)) {
      for (const dir of treeOf(root)) wanted.set(dir, () => true);
      continue;
    }
    const { ancestor, next } = nearestExisting(root);
    // Only the entry on the way to the root matters: the data dir's own files (the SQLite
    // database, the disk cache) change all the time.
    if (ancestor !== undefined && !wanted.has(ancestor)) {
      wanted.set(ancestor, (file) => file === null || file === next);
    }
  }
  return wanted;
}

/** Whether `dir` is inside one of the roots (its events are template edits, not an ancestor's). */
function isDirTree(dir: string, roots: readonly string[]): boolean {
  return roots.some((r) => dir === path.resolve(r) || dir.startsWith(`${path.resolve(r)}${path.sep}`));
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
