import { parseArgs } from 'node:util';
import { type Finding, runDoctor } from '../../doctor/checks.js';
import { loadConfig } from '../../settings.js';
import { report, UsageError } from '../admin.js';

const HELP = `Check that this machine can run Cardshot, and say how to fix what cannot.

  npx cardshot doctor [--json]

Checks Chromium (found, version, starts headless with the service's flags), the template fonts
(a real card is rendered) and the fonts screenshots need, the data dir (writable, free space), the plans file,
the database (answers, migrations current), the secret (usable, matches the database), Redis
(when REDIS_URL is set: PING and its latency), the URL guard (refuses loopback and the cloud
metadata address, and the allow-list opens nothing dangerous) and what is exposed. Reads the
same configuration as the server. Exits 1 when any check fails (warnings do not fail).`;

const MARK: Record<Finding['status'], string> = { ok: '✓', warn: '!', fail: '✗', skip: '-' };

/** `cardshot doctor`. */
export async function runDoctorCommand(argv: string[]): Promise<number> {
  try {
    const { values } = parseArgs({
      args: argv,
      options: { json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
    if (values.help) {
      process.stdout.write(`${HELP}\n`);
      return 0;
    }
    const findings = await runDoctor(loadConfig({ logLevel: 'warn' }));
    const failed = findings.filter((f) => f.status === 'fail').length;
    const warned = findings.filter((f) => f.status === 'warn').length;
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ ok: failed === 0, findings })}\n`);
    } else {
      const lines = findings.flatMap((f) => [
        `${MARK[f.status]} ${f.name}: ${f.detail}`,
        ...(f.fix ? [`    fix: ${f.fix}`] : []),
      ]);
      const summary =
        failed > 0
          ? `${failed} check(s) failed${warned ? `, ${warned} warning(s)` : ''}.`
          : `All checks passed${warned ? ` (${warned} warning(s))` : ''}.`;
      process.stdout.write(`${lines.join('\n')}\n\n${summary}\n`);
    }
    return failed > 0 ? 1 : 0;
  } catch (err) {
    if (err instanceof Error && (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      return report('doctor', HELP, new UsageError(err.message));
    }
    return report('doctor', HELP, err);
  }
}
