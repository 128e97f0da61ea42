import { existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, type ConfigSource } from '../config/load.js';
import { type Config, explainConfig } from '../settings.js';
import { packageRoot } from '../version.js';

/** What deciding on the data dir looks at: the setting, where it came from, and the disk. */
export interface DataDirQuestion {
  /** CARDSHOT_DATA_DIR as configured (default `./data`). */
  dataDir: string;
  source: ConfigSource;
  /** The config file that was read (a server's directory has one), or null. */
  configFile: string | null;
  /** False when CARDSHOT_SECRET and DATABASE_URL are both set: nothing is kept in the data dir. */
  needed: boolean;
  cwd: string;
  /** The Cardshot installation this CLI runs from; its `data/` is the server's by default. */
  packageRoot: string;
}

/** The data dir to use, and a line for stderr when it is not the one the setting names. */
export interface DataDirAnswer {
  dataDir: string;
  note?: string;
}

/** A data dir a server has used: it holds the generated secret or the SQLite database. */
function holdsState(dir: string): boolean {
  return existsSync(path.join(dir, 'secret')) || existsSync(path.join(dir, 'cardshot.sqlite'));
}

function isDirectory(dir: string): boolean {
  return statSync(dir, { throwIfNoEntry: false })?.isDirectory() === true;
}

/**
 * Where a CLI command finds the server's state. `npx cardshot keys …` run from another project
 * must not quietly make a new `./data` with a new secret, where no server looks and no existing
 * key verifies. So: a data dir named explicitly (environment or config file) is used when it
 * exists; the default `./data` when a server has used it, or when this is a server's directory
 * (it has cardshot.config.json, or it is the installation itself); otherwise the installation's
 * own `data/` when a server has used that. Anything else is refused, naming where it looked.
 */
export function locateDataDir(q: DataDirQuestion): DataDirAnswer {
  if (!q.needed) return { dataDir: q.dataDir };
  const here = path.resolve(q.cwd, q.dataDir);
  if (q.source !== 'default') {
    if (isDirectory(here)) return { dataDir: q.dataDir };
    throw new ConfigError(
      `CARDSHOT_DATA_DIR: no directory at ${here}; give the server's data directory (the server creates it on its first start)`,
    );
  }
  const installed = path.join(q.packageRoot, 'data');
  if (holdsState(here) || q.configFile !== null || here === installed) return { dataDir: q.dataDir };
  if (holdsState(installed)) {
    return { dataDir: installed, note: `no Cardshot data in ${here}; using the server's, ${installed}` };
  }
  throw new ConfigError(
    `no Cardshot data directory at ${here} (nor at ${installed}); run this in the server's directory, or set CARDSHOT_DATA_DIR to its data directory (\`npm start\` creates it on the first start)`,
  );
}

/**
 * The configuration for a CLI command that uses the data dir: loaded as the server loads it,
 * with the data dir located as `locateDataDir` says (a note on `stderr` when it moved). With
 * `refuse: false` (commands that only read, such as finding the server's address) a data dir
 * that cannot be found is left as configured instead of refused.
 */
export function loadCliConfig(
  stderr: { write(s: string): unknown },
  opts: { refuse?: boolean } = {},
): Config {
  const explained = explainConfig({ logLevel: 'warn' });
  const { config } = explained;
  let answer: DataDirAnswer;
  try {
    answer = locateDataDir({
      dataDir: config.dataDir,
      source: explained.sources.dataDir,
      configFile: explained.file,
      needed: config.secret === '' || config.databaseUrl.trim() === '',
      cwd: process.cwd(),
      packageRoot: packageRoot(),
    });
  } catch (err) {
    if (opts.refuse === false) return config;
    throw err;
  }
  if (answer.dataDir === config.dataDir) return config;
  if (answer.note) stderr.write(`cardshot: ${answer.note}\n`);
  return explainConfig({ logLevel: 'warn', dataDir: answer.dataDir }).config;
}
