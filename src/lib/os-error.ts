import { statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * Plain words for the operating-system errors a wrong or unready setting causes (a database
 * host that refuses, a data dir that is a file), so a failed start can say what happened in
 * one line instead of Node's `connect ECONNREFUSED 127.0.0.1:1` and a stack.
 */
const WORDS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'name lookup failed, try again',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
  EPIPE: 'connection closed',
  EADDRNOTAVAIL: 'not an address of this machine',
  ENOTDIR: 'not a directory',
  EISDIR: 'is a directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EDQUOT: 'disk quota exceeded',
  EEXIST: 'already exists',
  ENOENT: 'no such file or directory',
  ELOOP: 'too many symbolic links',
  ENAMETOOLONG: 'name too long',
};

/** Errors that mean the other end could not be reached (as opposed to reached and refusing). */
export const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNRESET',
  'EPIPE',
  'EADDRNOTAVAIL',
]);

/** The errno code of `err`, when it has one. */
export function errnoCode(err: unknown): string | undefined {
  const code = (err as NodeJS.ErrnoException | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Plain words for `err`'s errno code, or undefined when it has none we know. */
export function describeOsError(err: unknown): string | undefined {
  const code = errnoCode(err);
  return code === undefined ? undefined : WORDS[code];
}

/**
 * A failed file-system call on `err.path`, in words that say what to change: the file in the
 * way of a directory (ENOTDIR, or EEXIST from mkdir), or the path, the reason and, when it is
 * a permission, the user Cardshot runs as. Undefined for errors without a path or known code.
 */
export function describePathError(err: unknown): string | undefined {
  const e = err as NodeJS.ErrnoException;
  const words = describeOsError(err);
  if (!words || typeof e.path !== 'string') return undefined;
  if (e.code === 'ENOTDIR' || (e.code === 'EEXIST' && e.syscall === 'mkdir')) {
    const file = fileInTheWay(path.resolve(e.path));
    if (file) return `${file} is a file, not a directory`;
  }
  const user = e.code === 'EACCES' || e.code === 'EPERM' ? ` (Cardshot runs as ${userName()})` : '';
  return `${e.path}: ${words}${user}`;
}

/** The first component of the absolute `target` that exists and is not a directory. */
function fileInTheWay(target: string): string | undefined {
  const parts = target.split(path.sep);
  for (let i = 2; i <= parts.length; i++) {
    const prefix = parts.slice(0, i).join(path.sep);
    try {
      if (!statSync(prefix).isDirectory()) return prefix;
    } catch {
      return undefined;
    }
  }
  return undefined;
}

function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    // A container user with no passwd entry.
    return `uid ${process.getuid?.() ?? '?'}`;
  }
}
