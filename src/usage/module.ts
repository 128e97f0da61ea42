/** The usage area: daily counters, written in batches off the request path. */
import path from 'node:path';
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { Clock } from '../lib/clock.js';
import type { StorageConfig } from '../storage/settings.js';
import type { Store } from '../storage/store.js';
import { createUsageRecorder, type UsageRecorder } from './recorder.js';
import type { UsageConfig } from './settings.js';

/** Creates the usage recorder over the store. */
export function createUsageArea(
  config: UsageConfig & Pick<StorageConfig, 'dataDir' | 'databaseTimeoutMs'>,
  deps: { store: Store; log: Logger; clock?: Clock },
): Promise<Area<UsageRecorder>> {
  return startArea(deps.log, (parts) => {
    const usage = createUsageRecorder({
      store: deps.store,
      flushMs: config.usageFlushSeconds * 1000,
      log: deps.log,
      ...(deps.clock ? { clock: deps.clock } : {}),
      // Counts a stop cannot write (database away, disk full) wait there for the next start.
      spillFile: path.join(config.dataDir, 'usage-pending.json'),
      closeTimeoutMs: config.databaseTimeoutMs,
    });
    parts.add('usage', () => usage.close());
    return { service: usage };
  });
}
