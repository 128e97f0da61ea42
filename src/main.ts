import { chmod, mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from 'pino';
import { type FirstRun, firstRun, firstRunMessage } from './accounts/first-run.js';
import { createApp } from './app.js';
import { ConfigError, loadConfig } from './config/load.js';
import type { Config } from './config/schema.js';
import { createLogger } from './log.js';
import { createModules } from './modules.js';

/** Grace period for in-flight requests and module shutdown before the process exits anyway. */
const SHUTDOWN_GRACE_MS = 10_000;

async function main(): Promise<void> {
  let config: ReturnType<typeof loadConfig>;
  try {
    config = loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`cardshot: configuration error: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
  const log = createLogger(config);
  let modules: Awaited<ReturnType<typeof createModules>>;
  try {
    modules = await createModules(config, log);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`cardshot: configuration error: ${err.message}\n`);
      process.exit(78);
    }
    throw err;
  }
  const app = createApp({ config, log, ...modules });
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    // The two ways a listen fails on a user's machine get one plain line, not a stack trace.
    const code = (err as NodeJS.ErrnoException).code;
    const at = `${config.host}:${config.port}`;
    if (code === 'EADDRINUSE' || code === 'EACCES') {
      process.stderr.write(
        code === 'EADDRINUSE'
          ? `cardshot: ${at} is already in use by another program; stop it or set PORT to a free port\n`
          : `cardshot: not allowed to listen on ${at}; use a PORT above 1023\n`,
      );
      await modules.close();
      process.exit(1);
    }
    throw err;
  }
  // After listen: a start that fails (port taken) must not use up the first run, whose key and
  // invite are shown only once.
  const first = config.firstRunKey ? await firstRun(modules.accounts) : null;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const baseUrl = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
  if (first) await showFirstRun(baseUrl, first, config, log);
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
  const file = path.join(config.dataDir, 'first-run.txt');
  try {
    // With PostgreSQL and CARDSHOT_SECRET nothing else may have created the data dir.
    await mkdir(config.dataDir, { recursive: true, mode: 0o700 });
    await writeFile(file, message, { mode: 0o600 });
    // The mode above applies only to a new file; one left from an earlier install keeps its own.
    await chmod(file, 0o600);
  } catch (err) {
    log.error(
      { ...facts, file, err: (err as Error).message },
      'first start: could not write the first-run file; make a key with `npx cardshot keys create` and an invite with `npx cardshot accounts invite admin@localhost`',
    );
    return;
  }
  log.info(
    { ...facts, file },
    'first start: created the default account and a development key; read them once from the file, then delete it',
  );
}

main().catch((err) => {
  process.stderr.write(
    `cardshot: failed to start: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`,
  );
  process.exit(1);
});
