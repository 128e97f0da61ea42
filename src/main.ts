import type { Logger } from 'pino';
import { type FirstRun, firstRun, firstRunMessage, writeFirstRunFile } from './accounts/first-run.js';
import { createApp } from './app.js';
import { loadConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { describeUnknownVariables, findUnknownVariables } from './config/unknown-env.js';
import { createLogger } from './log.js';
import { createModules } from './modules.js';
import { describeListenFailure, describeStartFailure, type StartFailure } from './start-error.js';

/** Grace period for in-flight requests and module shutdown before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config: Config;
  try {
    config = loadConfig();
  } catch (err) {
    return exitWith(describeStartFailure(err), err);
  }
  const log = createLogger(config);
  // Before anything can fail: a misspelt CARDSHOT_DATABASE_SCHEMA may be why the start fails.
  const unknown = findUnknownVariables();
  if (unknown.length > 0) {
    log.warn({ unknown: unknown.map((u) => u.name) }, describeUnknownVariables(unknown));
  }
  let modules: Awaited<ReturnType<typeof createModules>>;
  try {
    modules = await createModules(config, log);
  } catch (err) {
    return exitWith(describeStartFailure(err, config), err);
  }
  const app = createApp({ config, log, ...modules });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const failure = describeListenFailure(err, config.host, config.port);
    if (failure) await modules.close();
    return exitWith(failure, err);
  }
  // After listen: a start that fails (port taken) must not use up the first run, whose key and
  // invite are shown only once.
  const first = config.firstRunKey ? await firstRun(modules.accounts) : null;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const baseUrl = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
  // Links someone follows later use the public address when there is one, as `accounts invite`
  // does: behind a proxy the local one is a loopback address nobody else can open.
  const linkBase = config.publicUrl !== '' ? config.publicUrl.replace(/\/+$/, '') : baseUrl;
  if (first) await showFirstRun(linkBase, first, config, log);
  log.info({ port }, `Cardshot is serving on ${baseUrl}`);
  // Chromium starts after the port is open so templates are served meanwhile; a missing or
  // broken Chromium leaves GET /render/url answering 503 and everything else working.
  modules.screenshots.warm().then(
    () => log.info('screenshots ready'),
    (err) =>
      log.warn(
        { detail: err?.detail ?? String(err) },
        `screenshots unavailable: ${err?.message ?? err} (GET /render/url answers 503)`,
      ),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) {
      log.warn('second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal }, 'shutting down');
    const timer = setTimeout(() => {
      log.error('shutdown grace period over: exiting');
      process.exit(1);
    }, SHUTDOWN_GRACE_MS);
    timer.unref();
    try {
      await app.close(); // stops accepting and waits for in-flight requests
    } catch (err) {
      log.error({ err }, 'http close failed');
    }
    await modules.close();
    log.info('bye');
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

/**
 * Shows the first run's key, signing secret and invite link once: on a terminal, printed; on
 * any other stdout (nohup.out, journald, docker logs, a collector), which keeps what it is
 * given, written to a file only the service user can read instead, whatever NODE_ENV says.
 */
async function showFirstRun(baseUrl: string, first: FirstRun, config: Config, log: Logger): Promise<void> {
  const message = firstRunMessage(baseUrl, first);
  const facts = { account: first.account.id, keyId: first.created.record.id };
  if (process.stdout.isTTY) {
    // Straight to stdout, never through the logger: the key must not reach a log line.
    process.stdout.write(message);
    log.info(facts, 'first start: created the default account and a development key (printed above, once)');
    return;
  }
  let file: string;
  try {
    file = await writeFirstRunFile(config.dataDir, message);
  } catch (err) {
    log.error(
      { ...facts, dataDir: config.dataDir, err: (err as Error).message },
      'first start: could not write the first-run file; make a key with `npx cardshot keys create` and an invite with `npx cardshot accounts invite admin@localhost`',
    );
    return;
  }
  log.info(
    { ...facts, file },
    'first start: created the default account and a development key; read them once from the file, then delete it',
  );
}

/**
 * Ends a start that cannot go on: a known failure as its one line and status, anything else
 * rethrown to be printed with its stack below.
 */
function exitWith(failure: StartFailure | undefined, err: unknown): never {
  if (!failure) throw err;
  process.stderr.write(`${failure.line}\n`);
  process.exit(failure.exitCode);
}

main().catch((err) => {
  // Only what nobody foresaw gets here: its stack is what a bug report needs.
  process.stderr.write(
    `cardshot: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
