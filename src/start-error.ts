import path from 'node:path';
import { ConfigError } from './config/load.js';
import { isAppError } from './errors.js';
import { describePathError, errnoCode } from './lib/os-error.js';
import type { StorageConfig } from './storage/settings.js';

/**
 * Exit statuses of a start that cannot go on (sysexits.h), so that a supervisor or a script can
 * tell them apart. 78 (EX_CONFIG): a setting is wrong, and starting again cannot help until it is
 * changed (a systemd unit may list it in RestartPreventExitStatus=). 69 (EX_UNAVAILABLE): the
 * database could not be reached; the settings may be right and it not up yet, so a restart may
 * work. Anything else is a bug, and exits 1 with its stack.
 */
export const EX_CONFIG = 78;
export const EX_UNAVAILABLE = 69;

/** What a failed start prints (one line, no stack) and the status it exits with. */
export interface StartFailure {
  line: string;
  exitCode: number;
}

/**
 * The line and status for an error that stopped the start before listening, naming the
 * setting at fault; undefined for an error nobody expected (the caller prints its stack).
 */
export function describeStartFailure(
  err: unknown,
  config?: Pick<StorageConfig, 'dataDir'>,
): StartFailure | undefined {
  if (err instanceof ConfigError) return configFailure(err.message);
  if (isAppError(err, 'unavailable')) {
    return { line: `cardshot: cannot start: ${err.message}`, exitCode: EX_UNAVAILABLE };
  }
  const dataDir = config ? dataDirProblem(err, config.dataDir) : undefined;
  return dataDir ? configFailure(dataDir) : undefined;
}

/** The line and status for a failed listen that the machine or HOST/PORT caused. */
export function describeListenFailure(err: unknown, host: string, port: number): StartFailure | undefined {
  const at = `${host}:${port}`;
  switch (errnoCode(err)) {
    // These two kept status 1, which scripts may already test for.
    case 'EADDRINUSE':
      return {
        line: `cardshot: ${at} is already in use by another program; stop it or set PORT to a free port`,
        exitCode: 1,
      };
    case 'EACCES':
      return { line: `cardshot: not allowed to listen on ${at}; use a PORT above 1023`, exitCode: 1 };
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return configFailure(
        `HOST: cannot listen on ${host}: not an IP address, nor a name this machine resolves`,
      );
    case 'EADDRNOTAVAIL':
      return configFailure(
        `HOST: ${host} is not an address of this machine (0.0.0.0 listens on all of them)`,
      );
    case 'EAFNOSUPPORT':
      return configFailure(`HOST: cannot listen on ${host}: this machine has no IPv6`);
    default:
      return undefined;
  }
}

function configFailure(message: string): StartFailure {
  // The prefix configuration errors have always had (loadConfig's), so one grep finds them all.
  return { line: `cardshot: configuration error: ${message}`, exitCode: EX_CONFIG };
}

/**
 * A file-system error on the data dir (or on the way to it): the secret, the SQLite file and the
 * disk cache are all made there, by different modules, so it is recognised by its path here
 * once rather than wrapped in each of them.
 */
function dataDirProblem(err: unknown, dataDir: string): string | undefined {
  const at = (err as NodeJS.ErrnoException).path;
  if (typeof at !== 'string') return undefined;
  const dir = path.resolve(dataDir);
  const abs = path.resolve(at);
  const related = abs === dir || abs.startsWith(`${dir}${path.sep}`) || dir.startsWith(`${abs}${path.sep}`);
  const words = related ? describePathError(err) : undefined;
  return words ? `CARDSHOT_DATA_DIR: ${words}` : undefined;
}
