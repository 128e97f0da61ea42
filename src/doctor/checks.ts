import type { Config } from '../settings.js';
import { checkEnvironment } from './environment.js';
import { type Finding, firstLine } from './finding.js';
import { checkChromium, checkDataDir, checkSystemFonts, checkTemplateFonts } from './machine.js';
import { checkExposure, checkUrlGuard } from './network.js';
import { checkDatabaseAndSecret, checkPlans, checkRedis } from './state.js';

export type { Finding } from './finding.js';
export { maskUrl } from './finding.js';

/** Runs every check; each one reports instead of throwing. */
export async function runDoctor(config: Config): Promise<Finding[]> {
  const checks: Array<() => Promise<Finding | Finding[]>> = [
    async () => checkEnvironment(),
    () => checkChromium(config),
    () => checkTemplateFonts(),
    async () => checkSystemFonts(),
    () => checkDataDir(config),
    async () => checkPlans(config),
    () => checkDatabaseAndSecret(config),
    () => checkRedis(config),
    () => checkUrlGuard(config),
    async () => checkExposure(config),
  ];
  const findings: Finding[] = [];
  for (const check of checks) {
    try {
      const out = await check();
      findings.push(...(Array.isArray(out) ? out : [out]));
    } catch (err) {
      findings.push({ name: 'doctor', status: 'fail', detail: `a check crashed: ${firstLine(err)}` });
    }
  }
  return findings;
}
