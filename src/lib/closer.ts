import type { Logger } from 'pino';

/** Parts to stop, each with the name its failure is logged under. */
export interface Closer {
  /** Records a started part; it is closed before every part added earlier. */
  add(name: string, close: () => Promise<void>): void;
  /**
   * Closes every part in reverse order of `add`, each once. One failing close is logged and does
   * not block the others, so a stuck Redis never keeps the database open; never rejects.
   */
  close(): Promise<void>;
}

/** An empty list of parts to stop; failures are logged on `log` as "module close failed". */
export function createCloser(log: Logger): Closer {
  const parts: Array<{ name: string; close: () => Promise<void> }> = [];
  return {
    add(name, close) {
      parts.push({ name, close });
    },
    async close() {
      // splice: a second close() (a stop while starting, then SIGTERM) closes nothing twice.
      for (const part of parts.splice(0).reverse()) {
        try {
          await part.close();
        } catch (err) {
          log.error({ err, module: part.name }, 'module close failed');
        }
      }
    },
  };
}
