import { vi } from 'vitest';

/** What a CLI command run in this process printed, and its exit status. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs a CLI command (`runTheme`, `runRender`, …) in this process with stdout and stderr
 * captured instead of written, so a test asserts exactly what a user would see.
 */
export async function runInProcess(
  command: (argv: string[]) => Promise<number>,
  args: string[],
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const o = vi.spyOn(process.stdout, 'write').mockImplementation((s) => {
    stdout += String(s);
    return true;
  });
  const e = vi.spyOn(process.stderr, 'write').mockImplementation((s) => {
    stderr += String(s);
    return true;
  });
  try {
    return { code: await command(args), stdout, stderr };
  } finally {
    o.mockRestore();
    e.mockRestore();
  }
}
