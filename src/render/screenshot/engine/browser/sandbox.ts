import { firstLine } from '../../../../lib/first-line.js';
import type { ChromiumRunner, SandboxSetting } from './browser.js';

/**
 * Starts something Chromium-backed the way the service does: with the sandbox when the runner
 * says so (and not `skipSandbox`), and under `auto`, if that fails, once more without it. A
 * kernel without unprivileged user namespaces (some container runtimes) stops the sandbox from
 * starting; `auto` then runs without it rather than not at all, `on` lets the failure stand.
 * `sandboxError` is the first line of why it fell back, for the caller to report.
 */
export async function startWithSandboxFallback<T>(
  setting: SandboxSetting,
  runner: ChromiumRunner,
  start: (sandbox: boolean) => Promise<T>,
  opts: { skipSandbox?: boolean } = {},
): Promise<{ value: T; sandbox: boolean; sandboxError?: string }> {
  if (runner.error) throw new Error(runner.error);
  const sandbox = runner.sandbox && !opts.skipSandbox;
  try {
    return { value: await start(sandbox), sandbox };
  } catch (err) {
    if (!sandbox || setting === 'on') throw err;
    const value = await start(false);
    return { value, sandbox: false, sandboxError: firstLine(err) };
  }
}
