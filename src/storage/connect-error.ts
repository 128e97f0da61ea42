import { statfsSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config/load.js';
import { AppError } from '../errors.js';
import { describeOsError, describePathError, errnoCode, UNREACHABLE } from '../lib/os-error.js';

/**
 * What a failed connection to the database means, as an error that names the setting:
 *
 * - The server could not be reached (refused, no such host, timed out, closed on us): an
 *   `unavailable` AppError. The settings may well be right and the database not up yet (a
 *   compose file starting both at once, a restarting server), so the start exits 69
 *   (EX_UNAVAILABLE) and a supervisor's retry can succeed.
 * - The server answered and said no (no such database or role, wrong password, TLS refused), or
 *   the URL cannot be used at all: a ConfigError (exit 78, EX_CONFIG). Retrying cannot help
 *   until someone changes DATABASE_URL.
 *
 * Anything else (a migration's SQL failing) is not a connection failure: undefined, and the
 * caller rethrows it as it came.
 */
export function postgresConnectFailure(err: unknown, url: string): Error | undefined {
  const at = serverOf(url);
  const message = err instanceof Error ? err.message : String(err);
  const code = errnoCode(err);
  if (code === 'ERR_INVALID_URL') {
    // The URL itself is never echoed: it may hold a password.
    return new ConfigError('DATABASE_URL is not a valid URL (postgres://user:password@host:5432/database)');
  }
  const words = describeOsError(err);
  if (code !== undefined && UNREACHABLE.has(code) && words) return unreachable(at, words, err);
  // pg's own words for a server that accepted the socket but never spoke PostgreSQL.
  if (/timeout expired|connection timeout/i.test(message)) return unreachable(at, 'no answer in time', err);
  if (/Connection terminated unexpectedly/i.test(message)) {
    return unreachable(at, 'the connection closed before PostgreSQL answered', err);
  }
  const state = (err as { severity?: unknown }).severity === undefined ? undefined : code;
  if (state !== undefined) {
    // SQLSTATE classes 28 (authorization) and 3D000 (no such database): wrong settings.
    if (state.startsWith('28') || state === '3D000') {
      return new ConfigError(`DATABASE_URL: ${at} refused the connection: ${message}`, { cause: err });
    }
    // Starting up, shutting down, too many connections, class 08: a server that may soon accept.
    if (state.startsWith('08') || ['57P01', '57P02', '57P03', '53300'].includes(state)) {
      return unreachable(at, message, err);
    }
    return undefined;
  }
  if (/SSL|TLS|certificate/i.test(message) || (code !== undefined && /CERT|SSL|TLS/.test(code))) {
    return new ConfigError(`DATABASE_URL: TLS with ${at} failed: ${message}`, { cause: err });
  }
  return undefined;
}

/**
 * What a failed open of the SQLite file means: always something to fix in `setting` (the
 * file's directory is a file, read-only or not ours, or the file is not a database).
 */
export function sqliteOpenFailure(err: unknown, file: string, setting: string): Error {
  // A full disk is no setting to fix: SQLite says "disk I/O error" (it cannot size its -shm
  // file) or SQLITE_FULL. Said in words, and exit 69 like an unreachable database: a retry
  // after space is freed succeeds.
  const code = errnoCode(err) ?? '';
  if ((code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR')) && diskFull(path.dirname(file))) {
    return new AppError(
      'unavailable',
      `${setting}: cannot open the SQLite database: the disk holding ${file} is full (${code})`,
      { cause: err },
    );
  }
  const why = describePathError(err) ?? `${file}: ${err instanceof Error ? err.message : String(err)}`;
  return new ConfigError(`${setting}: cannot open the SQLite database: ${why}`, { cause: err });
}

function unreachable(at: string, why: string, cause: unknown): AppError {
  return new AppError('unavailable', `DATABASE_URL: could not connect to ${at} (${why})`, { cause });
}

/** host:port of a postgres:// URL, as pg reads it (a ?host= overrides; the defaults are libpq's). */
function serverOf(url: string): string {
  try {
    const u = new URL(url);
    return `${u.searchParams.get('host') ?? (u.hostname || 'localhost')}:${u.port || '5432'}`;
  } catch {
    return 'the database server';
  }
}

/** True when the file system holding `dir` has (almost) no space left for this user. */
export function diskFull(dir: string): boolean {
  try {
    const fs = statfsSync(dir);
    return fs.bavail * fs.bsize < 64 * 1024;
  } catch {
    return false;
  }
}
