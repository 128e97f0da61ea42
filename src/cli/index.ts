import { unsupportedNode } from '../version.js';
import { failureLine } from './admin.js';

/**
 * Each verb's one-line help (the first word is the command) and its command, imported when it
 * runs: `render` alone used to load the screenshot engine, the database drivers and Redis
 * client with every other command's code (about a second of a one-card run).
 */
const COMMANDS: Record<string, { help: string; run: (argv: string[]) => Promise<number> }> = {
  render: {
    help: 'render <template> --title … [--subtitle … --brand … --image-url …] -o card.png\n  render --batch cards.json|cards.csv --out-dir dir/',
    run: async (argv) => (await import('./commands/render.js')).runRender(argv),
  },
  templates: {
    help: 'templates list | check [--dir DIR] [--json] | new NAME | types [--out FILE]   template files: fit check, starter, client types',
    run: async (argv) => (await import('./commands/templates.js')).runTemplates(argv),
  },
  shot: {
    help: 'shot <url> [--full-page --selector … --format webp …] -o page.webp\n  shot --batch urls.txt -o shots/ [--concurrency N]   screenshots through a running server',
    run: async (argv) => (await import('./commands/shot.js')).runShot(argv),
  },
  jobs: {
    help: 'jobs submit FILE.csv|FILE.json [--wait] [--out-dir DIR] | get|cancel|results ID | list   background batches through a running server',
    run: async (argv) => (await import('./commands/jobs.js')).runJobs(argv),
  },
  unfurl: {
    help: 'unfurl URL [--fail-on error|warning|info] [--json]   how nine networks will show a link, and what to fix (CI)',
    run: async (argv) => (await import('./commands/unfurl.js')).runUnfurl(argv),
  },
  sites: {
    help: 'sites create --origin URL --template T [--refresh 1d …] | list | show|update|delete SITE | purge SITE [--path /p] | warm SITE [--sitemap URL] | tag SITE /path   one og:image tag, every page',
    run: async (argv) => (await import('./commands/sites.js')).runSites(argv),
  },
  webhooks: {
    help: 'webhooks add URL [--events …] | list | rotate ID | test ID | remove ID | deliveries ID   signed job events',
    run: async (argv) => (await import('./commands/webhooks.js')).runWebhooks(argv),
  },
  storage: {
    help: 'storage add ENDPOINT --bucket B --access-key-id ID (secret on stdin) | list | test ID | remove ID   S3-compatible delivery targets',
    run: async (argv) => (await import('./commands/storage.js')).runStorage(argv),
  },
  fonts: {
    help: 'fonts add FILE [--family NAME] | list | remove ID   your own fonts for your theme',
    run: async (argv) => (await import('./commands/fonts.js')).runFonts(argv),
  },
  accounts: {
    help: 'accounts create --name … --email … --plan … | list | set-plan <id|email> <plan> | invite <id|email> | set-password <id|email>   [--json]',
    run: async (argv) => (await import('./commands/accounts.js')).runAccounts(argv),
  },
  keys: {
    help: 'keys create --account <id|email> --name … --environment … [--expires 90d] | list --account <id|email> | revoke <id> | rotate <id> --grace 24h   [--json]',
    run: async (argv) => (await import('./commands/keys.js')).runKeys(argv),
  },
  usage: {
    help: 'usage --account <id|email> [--days 30] [--json]',
    run: async (argv) => (await import('./commands/usage.js')).runUsage(argv),
  },
  theme: {
    help: 'theme show | set [--background … --text … --accent … --font … --logo-file … | --logo-url …] | clear   --account <id|email> [--json]',
    run: async (argv) => (await import('./commands/theme.js')).runTheme(argv),
  },
  sign: {
    help: 'sign <url> --key-id key_… --secret cssig_… [--expires 365d]',
    run: async (argv) => (await import('./commands/sign.js')).runSign(argv),
  },
  config: {
    help: 'config [--json | --markdown]   effective settings, secrets masked, and where each came from',
    run: async (argv) => (await import('./commands/config.js')).runConfig(argv),
  },
  doctor: {
    help: 'doctor [--json]   check Chromium, fonts, data dir, plans, database, secret, Redis and the URL guard',
    run: async (argv) => (await import('./commands/doctor.js')).runDoctorCommand(argv),
  },
};

function usage(): string {
  return [
    'Usage: npx cardshot <command> [options]',
    '',
    'Commands:',
    ...Object.values(COMMANDS).map((c) => `  ${c.help}`),
    '',
    'Run `npx cardshot <command> --help` for details.',
  ].join('\n');
}

/** Entry point of `npx cardshot`: dispatches to a command and exits with its status. */
export async function runCli(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(`${usage()}\n`);
    return name ? 0 : 1;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`cardshot: unknown command "${name}"\n\n${usage()}\n`);
    return 2;
  }
  // `accounts create --help` shows the command's help as `accounts --help` does, instead of
  // refusing --help as an unknown option of the subcommand.
  const wantsHelp = rest.some((a) => a === '--help' || a === '-h');
  if (wantsHelp && HELP_AT_COMMAND.has(name)) return command.run(['--help']);
  return command.run(rest);
}

/** Commands whose subcommands (`create`, `set`, …) share the command's one help text. */
const HELP_AT_COMMAND = new Set(['accounts', 'keys', 'theme']);

const oldNode = unsupportedNode();
try {
  if (oldNode) {
    process.stderr.write(`cardshot: ${oldNode}\n`);
    process.exitCode = 1;
  } else process.exitCode = await runCli(process.argv.slice(2));
} catch (err) {
  // A command that let an error through still prints one line, never a stack.
  process.stderr.write(`cardshot ${process.argv[2] ?? ''}: ${failureLine(err)}\n`);
  process.exitCode = 1;
}
