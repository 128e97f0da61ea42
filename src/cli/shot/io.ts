import { CardshotError } from '../../client/errors.js';

/** A stream the command writes to: the process's own, or a test's recorder. */
export interface OutStream {
  isTTY?: boolean;
  write(data: string | Uint8Array): unknown;
}

/** The command's standard streams, injected so tests can run it in-process. */
export interface ShotIo {
  stdout: OutStream;
  stderr: OutStream;
  readStdin(): Promise<string>;
}

/** The process's own streams. */
export const processIo: ShotIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  async readStdin() {
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  },
};

/**
 * One line for a failed capture: the server's own message with its status and request id (to
 * quote in a report), or what kept the request from getting an answer.
 */
export function describeFailure(err: unknown): string {
  if (err instanceof CardshotError) {
    if (err.status === 0) return err.message;
    return `${err.message} (HTTP ${err.status}${err.requestId ? `, ${err.requestId}` : ''})`;
  }
  return err instanceof Error ? err.message : String(err);
}

/** `812 B`, `48.2 KB`, `3.1 MB`. */
export function sizeText(bytes: number): string {
  if (bytes < 1000) return `${bytes} B`;
  if (bytes < 1_000_000) return `${(bytes / 1000).toFixed(1)} KB`;
  return `${(bytes / 1_000_000).toFixed(1)} MB`;
}
