/** The 503s of a screenshot that could not get its turn, or has no browser to run in. */
import { AppError } from '../../../errors.js';

/** The queue or the browser could not take the request in time: a 503 the client may retry. */
export function busy(detail: string): AppError {
  return new AppError('unavailable', 'The screenshot renderer is busy; retry shortly', {
    retryAfter: 2,
    detail,
  });
}

/** The 503 message while no browser runs (also the OpenAPI example). */
export const NOT_READY_MESSAGE = 'Screenshots are temporarily unavailable: the browser is not ready';

/** No browser could give a context in time while none runs: a 503 with a longer Retry-After. */
export function notReady(detail: string, cause?: unknown): AppError {
  return new AppError('unavailable', NOT_READY_MESSAGE, {
    retryAfter: 5,
    detail,
    ...(cause === undefined ? {} : { cause }),
  });
}

/** Chromium is not installed: a 503 without Retry-After (it will not fix itself). */
export function notInstalled(executablePath: string): AppError {
  return new AppError(
    'unavailable',
    'Screenshots are not available on this server: Chromium is not installed',
    {
      detail: `no executable at ${executablePath} (CARDSHOT_CHROMIUM_PATH)`,
    },
  );
}
