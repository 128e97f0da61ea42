import { describeOsError, describePathError, errnoCode } from '../lib/os-error.js';

/**
 * Plain words for a database or file-system failure that has a cause outside Cardshot (a full
 * disk, a read-only volume, an unwritable file), or undefined when `err` is not one. Used by
 * the usage recorder's log line and the CLI's one-line errors, so an operator reads "the disk
 * holding the database is full" rather than an SQLite code and a stack.
 */
export function describeStorageError(err: unknown): string | undefined {
  const code = errnoCode(err);
  if (code === undefined) return undefined;
  if (code === 'SQLITE_FULL') return 'the disk holding the SQLite database is full (SQLITE_FULL)';
  if (code.startsWith('SQLITE_READONLY')) {
    return `the SQLite database cannot be written: its file, its directory or the volume is read-only (${code})`;
  }
  if (code === 'SQLITE_CANTOPEN' || code === 'SQLITE_PERM' || code === 'SQLITE_AUTH') {
    return `the SQLite database file cannot be opened for writing (${code})`;
  }
  if (code.startsWith('SQLITE_IOERR')) {
    return `the disk holding the SQLite database failed a read or write (${code}); check free space and the kernel log`;
  }
  if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') {
    return `the SQLite database stayed locked by another process (${code})`;
  }
  if (code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB') {
    return `the SQLite database file is damaged (${code}); restore it from a backup`;
  }
  // PostgreSQL's SQLSTATEs for a full disk, too little memory and a read-only server.
  if (code === '53100') return "PostgreSQL's disk is full (53100 disk_full)";
  if (code === '53200') return 'PostgreSQL ran out of memory (53200)';
  if (code === '25006')
    return 'PostgreSQL is read-only (a standby, or default_transaction_read_only) (25006)';
  return describePathError(err) ?? describeOsError(err);
}
