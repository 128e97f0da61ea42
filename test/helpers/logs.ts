import { Writable } from 'node:stream';
import type { Logger } from 'pino';
import { createLogger } from '../../src/log.js';

type LoggerConfig = Parameters<typeof createLogger>[0];

/** One JSON log line as the service writes it. */
export type LogLine = Record<string, unknown>;

/**
 * The service's own logger (same level handling and redaction), writing into `lines` instead of
 * stdout, so a test can assert what an operator would read.
 */
export function capturedLogger(config: LoggerConfig = { logLevel: 'info', nodeEnv: 'test' }): {
  log: Logger;
  lines: LogLine[];
} {
  const lines: LogLine[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      for (const line of String(chunk).split('\n')) if (line.trim()) lines.push(JSON.parse(line));
      cb();
    },
  });
  return { log: createLogger(config, sink), lines };
}
