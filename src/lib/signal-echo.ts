/**
 * Tells a stop signal's echo from a second request to stop. `npm start` passes the signals it
 * gets on to the server, and a terminal's Ctrl-C (SIGINT to the foreground process group) or a
 * service manager stopping a whole control group signals npm and the server alike: the server
 * got the same signal twice, 78 ms apart (measured), and took the second as "exit now", so
 * one Ctrl-C cut the requests in flight and exited with status 1. A signal within `windowMs` of
 * the first is that echo; one later is an operator asking again.
 */
export interface SignalEchoes {
  /** Whether this signal comes too soon after the first to be a second request. */
  isEcho(): boolean;
}

export const ECHO_WINDOW_MS = 1000;

export function signalEchoes(windowMs = ECHO_WINDOW_MS, now: () => number = Date.now): SignalEchoes {
  let first: number | undefined;
  return {
    isEcho() {
      const t = now();
      if (first === undefined) {
        first = t;
        return false;
      }
      return t - first < windowMs;
    },
  };
}
