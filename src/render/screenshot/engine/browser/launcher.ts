/**
 * How one Chromium is started: the executable checked, who it runs as, its sandbox (falling
 * back once, with a warning, under `auto`) and the proxy session of its own requests.
 */
import { existsSync } from 'node:fs';
import type { Logger } from 'pino';
import { AppError } from '../../../../errors.js';
import type { EgressProxy, EgressSession } from '../../../../net/proxy.js';
import { chromiumRunner, type LaunchedBrowser, launchBrowser, type SandboxSetting } from './browser.js';
import { startWithSandboxFallback } from './sandbox.js';

export interface ChromiumLauncher {
  launch(): Promise<LaunchedBrowser>;
  /** Why the browser last started runs without its sandbox when it should have one. */
  readonly sandboxWarning: string | undefined;
  /** Closes the proxy session of the browsers' own requests. */
  close(): Promise<void>;
}

/** Creates the launcher; each `launch()` starts a new process. */
export function createChromiumLauncher(opts: {
  executablePath: string;
  sandbox: SandboxSetting;
  chromiumUser: string;
  proxy: EgressProxy;
  log: Logger;
}): ChromiumLauncher {
  const { log } = opts;
  let background: EgressSession | undefined;
  /** Set once the sandbox failed to start under `auto`: later launches go straight without it. */
  let sandboxFailed = false;
  let sandboxFailure: string | undefined;
  let sandboxWarning: string | undefined;

  return {
    get sandboxWarning() {
      return sandboxWarning;
    },

    async launch() {
      if (!existsSync(opts.executablePath)) {
        throw new AppError(
          'unavailable',
          'Screenshots are not available on this server: Chromium is not installed',
          {
            detail: `no executable at ${opts.executablePath} (CARDSHOT_CHROMIUM_PATH)`,
          },
        );
      }
      // Looked up at every launch: `npm run setup` may have created the user since.
      const runner = chromiumRunner(opts.sandbox, opts.chromiumUser);
      if (runner.error) {
        throw new AppError(
          'unavailable',
          'Screenshots are not available on this server: Chromium cannot start',
          {
            detail: runner.error,
          },
        );
      }
      if (runner.warning && runner.warning !== sandboxWarning) {
        log.error({ detail: runner.warning }, `SECURITY WARNING: ${runner.warning} (docs/security.md)`);
      }
      background ??= await opts.proxy.openSession('browser');
      const { server, username, password } = background;
      const proxyServer = { server, username, password };
      const { value: launched, sandboxError } = await startWithSandboxFallback(
        opts.sandbox,
        runner,
        (sandbox) => launchBrowser(opts.executablePath, proxyServer, sandbox, runner.asUser),
        { skipSandbox: sandboxFailed },
      );
      if (sandboxError) {
        // Said once: later launches go straight without it.
        sandboxFailed = true;
        sandboxFailure = sandboxError;
        log.error(
          { detail: sandboxError },
          "SECURITY WARNING: Chromium's sandbox could not start here; running without it (docs/security.md; CARDSHOT_CHROMIUM_SANDBOX=off skips the attempt)",
        );
      }
      sandboxWarning =
        runner.warning ??
        (sandboxFailed ? `the sandbox could not start here (${sandboxFailure})` : undefined);
      return launched;
    },

    async close() {
      await background?.close();
    },
  };
}
