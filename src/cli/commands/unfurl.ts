import { parseVerbArgs, UsageError } from '../admin.js';
import { remoteClient, runRemote, SERVER_FLAGS, SERVER_HELP } from '../remote.js';
import { processIo, type ShotIo } from '../shot/io.js';
import { failsAt, reportText } from '../unfurl/report.js';

const HELP = `How X, LinkedIn, Facebook, Slack, Discord, WhatsApp, iMessage, Telegram and Mastodon
will show a link, through a running Cardshot server (GET /unfurl).

  npx cardshot unfurl URL [--fail-on error|warning|info] [--json]

  --fail-on LEVEL   exit 1 when any problem is at LEVEL or above (default: error)
  --json            print the server's report as JSON instead of the readable one

${SERVER_HELP}

For CI: run it against a preview deployment after each build; each problem comes with the
exact tag to add. Exit status: 0 when nothing reaches --fail-on, 1 when something does or the
server refused (its message is printed), 2 for a command line that cannot work.`;

const FLAGS = {
  ...SERVER_FLAGS,
  'fail-on': { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

const LEVELS = ['error', 'warning', 'info'] as const;

/** `cardshot unfurl URL [--fail-on error|warning|info] [--json]`. */
export async function runUnfurl(argv: string[], io: ShotIo = processIo): Promise<number> {
  return runRemote('unfurl', HELP, io, async () => {
    const { values: v, positionals } = parseVerbArgs(argv, FLAGS);
    if (v.help) {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    const [url, extra] = positionals;
    if (!url) throw new UsageError('unfurl needs the URL to check');
    if (extra !== undefined) throw new UsageError('unfurl checks one URL at a time');
    const level = v['fail-on'] ?? 'error';
    if (!(LEVELS as readonly string[]).includes(level)) {
      throw new UsageError(`--fail-on must be one of: ${LEVELS.join(', ')}`);
    }
    const report = await (await remoteClient(v, io)).unfurl(url);
    io.stdout.write(
      v.json ? `${JSON.stringify(report, null, 2)}\n` : reportText(report, io.stdout.isTTY === true),
    );
    return failsAt(report, level as (typeof LEVELS)[number]) ? 1 : 0;
  });
}
