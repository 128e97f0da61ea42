import { describeUnknownVariables } from '../config/unknown-env.js';
import { findUnknownVariables } from '../settings.js';
import type { Finding } from './finding.js';

/** CARDSHOT_* variables that set nothing: a misspelt setting is otherwise silently ignored. */
export function checkEnvironment(): Finding {
  const unknown = findUnknownVariables();
  if (unknown.length === 0) {
    return { name: 'environment', status: 'ok', detail: 'every CARDSHOT_* variable is a setting' };
  }
  return {
    name: 'environment',
    // A warning, not a failure: another program may use the same prefix.
    status: 'warn',
    detail: describeUnknownVariables(unknown),
    fix: 'correct the name (npx cardshot config lists every setting), or ignore this if another program reads it',
  };
}
