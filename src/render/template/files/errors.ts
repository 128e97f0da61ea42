import path from 'node:path';

/** A template that cannot be loaded; `message` starts with `<file>:<line>:<column>:` where known. */
export class TemplateFileError extends Error {
  constructor(
    readonly file: string,
    message: string,
  ) {
    super(message);
    this.name = 'TemplateFileError';
  }
}

/** How messages name a file: relative to the working directory when inside it, else absolute. */
export function shown(file: string): string {
  const rel = path.relative(process.cwd(), file);
  return rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : file;
}

/** `file:line:column` (1-based), or just the file. */
export function where(file: string, line?: number, column?: number): string {
  if (line === undefined) return shown(file);
  return `${shown(file)}:${line}${column === undefined ? '' : `:${column}`}`;
}
