import pino, { type Logger } from 'pino';
import type { HttpConfig } from './http/settings.js';
import { stdoutDestination } from './lib/log-destination.js';

/**
 * Structured logs: JSON in production or when piped, readable lines in a terminal. API keys
 * never reach a log line: the headers that carry them are redacted here, and query strings
 * are redacted before logging (http/redact.ts).
 */
export function createLogger(
  config: Pick<HttpConfig, 'logLevel' | 'nodeEnv'> & Partial<Pick<HttpConfig, 'logFormat'>>,
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
  if (logFormat(config, process.stdout.isTTY === true) === 'pretty') {
    return pino({
      ...options,
      transport: {
        target: 'pino-pretty',
        options: {
          colorize: process.stdout.isTTY === true,
          translateTime: 'HH:MM:ss.l',
          ignore: 'pid,hostname,service',
        },
      },
    });
  }
  // Not pino's default (sonic-boom): its exit flush retries a broken pipe for ever.
  return pino(options, stdoutDestination());
}

/** Pretty only when asked, or (auto) on a terminal outside production: log collectors get JSON. */
export function logFormat(
  config: Pick<HttpConfig, 'nodeEnv'> & Partial<Pick<HttpConfig, 'logFormat'>>,
  isTTY: boolean,
): 'json' | 'pretty' {
  const format = config.logFormat ?? 'auto';
  if (format !== 'auto') return format as 'json' | 'pretty';
  return config.nodeEnv !== 'production' && isTTY ? 'pretty' : 'json';
}
