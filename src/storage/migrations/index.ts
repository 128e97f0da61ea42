import type { Migration, MigrationProvider } from 'kysely';
import { initial } from './001-initial.js';
import { dashboard } from './002-dashboard.js';
import { keyRotation } from './003-key-rotation.js';
import { themes } from './004-themes.js';
import { jobs } from './005-jobs.js';
import { webhooks } from './006-webhooks.js';
import { jobOutbox } from './007-job-outbox.js';
import { jobCredentials } from './008-job-credentials.js';
import { delivery } from './009-delivery.js';
import { fonts } from './010-fonts.js';
import { sites } from './011-sites.js';

/**
 * Every migration in order. Names sort lexically, so keep the numeric prefix; never edit a
 * migration that has shipped: add the next one (for example a password table for sign-in).
 */
const MIGRATIONS: Record<string, Migration> = {
  '001-initial': initial,
  '002-dashboard': dashboard,
  '003-key-rotation': keyRotation,
  '004-themes': themes,
  '005-jobs': jobs,
  '006-webhooks': webhooks,
  '007-job-outbox': jobOutbox,
  '008-job-credentials': jobCredentials,
  '009-delivery': delivery,
  '010-fonts': fonts,
  '011-sites': sites,
};

/** Kysely's provider over the static list above (no file-system scanning in a bundled build). */
export const migrationProvider: MigrationProvider = {
  async getMigrations() {
    return MIGRATIONS;
  },
};
