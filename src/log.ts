import pino, { type Logger } from 'pino';
import type { Config } from './config/schema.js';

/**
 * Structured logs: JSON in production or when piped, readable lines in a terminal. API keys
 * never reach a log line: the headers that carry them are redacted here, and query strings
 * are redacted before logging (http/redact.ts).
 */
export function createLogger(
  config: Pick<Config, 'logLevel' | 'nodeEnv'>,
  destination?: pino.DestinationStream,
): Logger {
  const options: pino.LoggerOptions = {
    level: config.logLevel,
    base: { service: 'cardshot' },
    redact: {
      paths: [
        'req.headers["x-api-key"]',
        'req.headers.authorization',
        'req.headers.cookie',
        'headers["x-api-key"]',
        'headers.authorization',
        'headers.cookie',
      ],
      censor: '[REDACTED]',
    },
  };
  if (destination) return pino(options, destination);
  const pretty = config.nodeEnv !== 'production' && process.stdout.isTTY;
  if (pretty) {
    return pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        options: { colorize: true, translateTime: 'HH:MM:ss.l', ignore: 'pid,hostname,service' },
      },
    });
  }
  return pino(options);
}
