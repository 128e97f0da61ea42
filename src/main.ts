import type { Logger } from 'pino';
import {
  FIRST_RUN_FILE_HOURS,
  type FirstRun,
  firstRun,
  firstRunFileText,
  firstRunMessage,
  sweepFirstRunFiles,
  writeFirstRunFile,
} from './accounts/first-run.js';
import { recordListeningOrigin } from './accounts/origin.js';
import { describeUnknownVariables } from './config/unknown-env.js';
import { signalEchoes } from './lib/signal-echo.js';
import { startWatchdog } from './lib/watchdog.js';
import { createLogger } from './log.js';
import { createModules } from './modules.js';
import { killGroup, listProcesses } from './render/screenshot/engine/browser/processes.js';
import { createNodeApp, type RoleWork, startRoleWork } from './roles/node.js';
import { areasOf, checkRole } from './roles/role.js';
import { type Config, findUnknownVariables, loadConfig } from './settings.js';
import { describeListenFailure, describeStartFailure, EX_CONFIG, type StartFailure } from './start-error.js';
import { unsupportedNode } from './version.js';

async function main(): Promise<void> {
  const oldNode = unsupportedNode();
  if (oldNode) return exitWith({ line: `cardshot: ${oldNode}`, exitCode: EX_CONFIG }, undefined);
  let config: Config;
  try {
    // `npm start -- --skip-broken-templates`: a broken template file is left out with a warning.
    config = loadConfig(
      process.argv.includes('--skip-broken-templates') ? { skipBrokenTemplates: true } : undefined,
    );
    checkRole(config);
  } catch (err) {
    return exitWith(describeStartFailure(err), err);
  }
  const log = createLogger(config);
  // Before anything can fail: a misspelt CARDSHOT_DATABASE_SCHEMA may be why the start fails.
  const unknown = findUnknownVariables();
  if (unknown.length > 0) {
    log.warn({ unknown: unknown.map((u) => u.name) }, describeUnknownVariables(unknown));
  }
  // Signals are taken from here on, not once the start is over: a supervisor may stop the
  // service as soon as /healthz answers, and the default action would end it with the usage
  // counts it took back from the last stop's spill file only in memory. Until the modules exist
  // a signal is remembered (with the watchdog armed, so a start that hangs still ends).
  let watchdogArmed = false;
  const armWatchdog = () => {
    if (watchdogArmed) return;
    watchdogArmed = true;
    // Another process: fires even if this one never gets back to its event loop or hangs in exit.
    startWatchdog(config.shutdownGraceMs, browserGroups());
  };
  let requested: string | undefined;
  let stop: ((signal: string) => Promise<void>) | undefined;
  const echoes = signalEchoes();
  const onSignal = (signal: string) => {
    if (echoes.isEcho()) {
      log.info(
        { signal },
        'the same stop again within a second (npm passes on the signal its group got): still stopping in order; signal again to exit at once',
      );
      return;
    }
    if (stop) return void stop(signal);
    if (requested) process.exit(1);
    requested = signal;
    armWatchdog();
    log.info({ signal }, 'stop requested while starting: stopping once the modules are open');
  };
  process.on('SIGTERM', () => onSignal('SIGTERM'));
  process.on('SIGINT', () => onSignal('SIGINT'));

  let modules: Awaited<ReturnType<typeof createModules>>;
  try {
    // A worker starts only what its work needs (roles/role.ts).
    const areas = areasOf(config.role);
    modules = (await createModules(config, log, areas ? { areas } : {})) as typeof modules;
  } catch (err) {
    return exitWith(describeStartFailure(err, config), err);
  }
  // Whatever ends the process from here on, counts not yet written are kept for the next start.
  process.on('exit', () => modules.usage.spillSync());
  // A worker serves only the probes and metrics; its work comes from PostgreSQL.
  const app = createNodeApp(config, log, modules);
  let roleWork: RoleWork | undefined;
  let sweeper: NodeJS.Timeout | undefined;
  let stopping = false;
  stop = async (signal: string) => {
    if (stopping) {
      log.warn('second signal: exiting now');
      endBrowsers();
      process.exit(1);
    }
    stopping = true;
    clearInterval(sweeper);
    const grace = config.shutdownGraceMs;
    armWatchdog();
    log.info({ signal, graceMs: grace }, 'shutting down');
    // The orderly way out, a little before the watchdog: a line in the log, status 1.
    const timer = setTimeout(
      () => {
        log.error({ graceMs: grace }, 'shutdown grace period over: exiting');
        endBrowsers();
        process.exit(1);
      },
      grace - Math.min(1000, Math.floor(grace / 4)),
    );
    timer.unref();
    // Requests get the grace period but up to 4 s (at most half) kept for the modules (browser,
    // the last usage write).
    const closing = app.close();
    const requests = await settleWithin(closing, grace - Math.min(grace / 2, 4000));
    if (requests === 'timeout') log.warn('requests still running: closing modules under them');
    else if (requests instanceof Error) log.error({ err: requests }, 'http close failed');
    // A worker first finishes or hands back the API nodes' screenshots it holds (within a quarter of the
    // grace, 2 s at most), so their API nodes get them from another worker.
    await roleWork?.stop(Math.min(grace / 4, 2000));
    // The counts first, beside the modules' close: a capture that will not end holds the
    // screenshot queue's close, and with it every module after it in the order.
    await Promise.all([modules.usage.flush(), modules.close()]);
    // Requests cut by the modules closing (a capture whose browser is gone) get their answer out.
    if (requests === 'timeout') await settleWithin(closing, 500);
    log.info('bye');
    process.exit(0);
  };
  if (requested) return void stop(requested);

  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    if (stopping) return; // closed by a stop while opening
    const failure = describeListenFailure(err, config.host, config.port);
    if (failure) await modules.close();
    return exitWith(failure, err);
  }
  if (stopping) return;
  // After listen: a start that fails (port taken) must not use up the first run, whose key and
  // invite are shown only once.
  // The first run's key and invite are an API node's to show.
  const first = config.firstRunKey && config.role !== 'worker' ? await firstRun(modules.accounts) : null;
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shown = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const baseUrl = `http://${shown.includes(':') ? `[${shown}]` : shown}:${port}`;
  // Links someone follows later use the public address when there is one, as `accounts invite`
  // does: behind a proxy the local one is a loopback address nobody else can open.
  const linkBase = config.publicUrl !== '' ? config.publicUrl.replace(/\/+$/, '') : baseUrl;
  // The CLI prints invite links from this when CARDSHOT_PUBLIC_URL is unset (its own PORT may differ).
  await recordListeningOrigin(config.dataDir, baseUrl).catch((err) =>
    log.debug({ err: (err as Error).message }, 'could not record the listening address in the data dir'),
  );
  if (first) await showFirstRun(linkBase, first, config, log);
  // The first-run file holds a live key: it goes once its invite is used or after 72 hours.
  const sweep = () =>
    sweepFirstRunFiles(config.dataDir, modules.accounts.credentials).then(
      (removed) => {
        for (const file of removed) log.info({ file }, 'removed the first-run file (invite used or expired)');
      },
      () => {},
    );
  await sweep();
  if (stopping) return;
  sweeper = setInterval(() => void sweep(), 5 * 60_000);
  sweeper.unref();
  try {
    roleWork = await startRoleWork(config, log, modules);
  } catch (err) {
    log.error({ err }, "could not start taking the API nodes' screenshots");
    return void stop('start failure');
  }
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
}

/** Process groups of this process's Chromium browsers (each leads its own). */
function browserGroups(): number[] {
  return listProcesses()
    .filter((p) => p.ppid === process.pid && p.pid === p.pgid && p.comm.startsWith('chrom'))
    .map((p) => p.pgid);
}

/** SIGKILLs this process's Chromium browsers with everything they started. */
function endBrowsers(): void {
  for (const g of browserGroups()) killGroup(g);
}

/** `p`'s outcome (an Error when it rejects), or 'timeout' after `ms`. */
async function settleWithin(p: Promise<unknown>, ms: number): Promise<'done' | 'timeout' | Error> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  try {
    return await Promise.race([
      p.then(
        () => 'done' as const,
        (err: unknown) => (err instanceof Error ? err : new Error(String(err))),
      ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
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
    file = await writeFirstRunFile(config.dataDir, firstRunFileText(message));
  } catch (err) {
    log.error(
      { ...facts, dataDir: config.dataDir, err: (err as Error).message },
      'first start: could not write the first-run file; make a key with `npx cardshot keys create` and an invite with `npx cardshot accounts invite admin@localhost`',
    );
    return;
  }
  log.info(
    { ...facts, file },
    `first start: created the default account and a development key; read them once from the file, then delete it (Cardshot deletes it once the dashboard invite is used, or after ${FIRST_RUN_FILE_HOURS} hours)`,
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
