/** The dashboard's stateful part: its sessions, kept in the database. */
import type { Logger } from 'pino';
import { type Area, startArea } from '../area.js';
import type { ServerSecrets } from '../auth/secret.js';
import type { Clock } from '../lib/clock.js';
import type { Store } from '../storage/store.js';
import { createSessions, type Sessions } from './sessions.js';
import type { DashboardConfig } from './settings.js';

/** Creates the dashboard sessions over the store. */
export function createSessionsArea(
  config: Pick<DashboardConfig, 'sessionIdleMinutes' | 'sessionMaxHours'>,
  deps: { store: Store; secrets: ServerSecrets; log: Logger; clock?: Clock },
): Promise<Area<Sessions>> {
  return startArea(deps.log, (parts) => {
    const sessions = createSessions({
      store: deps.store,
      secrets: deps.secrets,
      idleMs: config.sessionIdleMinutes * 60_000,
      maxMs: config.sessionMaxHours * 3_600_000,
      log: deps.log,
      ...(deps.clock ? { clock: deps.clock } : {}),
    });
    parts.add('sessions', () => sessions.close());
    return { service: sessions };
  });
}
