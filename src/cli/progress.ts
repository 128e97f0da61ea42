/** Where progress goes: a terminal or a pipe (process.stderr, or a test's recorder). */
export interface ProgressStream {
  isTTY?: boolean;
  write(text: string): unknown;
}

/**
 * A one-line progress bar on a terminal; silent when the stream is not a terminal (CI, pipes),
 * where `line` prints one plain line per item instead (to `lines`, standard output by default
 * for callers that pass it), since a bar redrawn with \r is noise in a log file.
 */
export function createProgress(total: number, stream: ProgressStream, lines: ProgressStream = stream) {
  const tty = stream.isTTY === true;
  const width = 30;
  let last = 0;
  const draw = (done: number, failed: number) => {
    const filled = total === 0 ? width : Math.round((done / total) * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    stream.write(`\r${bar} ${done}/${total}${failed ? ` (${failed} failed)` : ''}`);
  };
  return {
    /** Redraws at most every 50 ms, and always for the last item. */
    tick(done: number, failed: number) {
      if (!tty) return;
      const now = Date.now();
      if (done === total || now - last > 50) {
        last = now;
        draw(done, failed);
      }
    },
    /** One finished item as a plain line, when there is no bar to show it. */
    line(text: string) {
      if (!tty) lines.write(`${text}\n`);
    },
    /** Ends the bar's line. */
    finish() {
      if (tty) stream.write('\n');
    },
  };
}
