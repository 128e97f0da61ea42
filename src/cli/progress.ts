/** A one-line progress bar on a terminal; silent when the stream is not a terminal (CI, pipes). */
export function createProgress(total: number, stream: NodeJS.WriteStream) {
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
    /** Ends the bar's line. */
    finish() {
      if (tty) stream.write('\n');
    },
  };
}
