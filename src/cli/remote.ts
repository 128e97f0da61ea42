import { linkOrigin } from '../accounts/origin.js';
import { Cardshot } from '../client/cardshot.js';
import { CardshotError } from '../client/errors.js';
import { apiKeyFromEnv } from '../config/client-env.js';
import { ConfigError } from '../config/load.js';
import { UsageError } from './admin.js';
import { loadCliConfig } from './data-dir.js';
import { printable } from './printable.js';
import { describeFailure, type ShotIo } from './shot/io.js';

/** The flags every command that talks to a running server takes. */
export const SERVER_FLAGS = {
  server: { type: 'string' },
  'api-key': { type: 'string' },
} as const;

export const SERVER_HELP = `Server:
  --server URL             default CARDSHOT_PUBLIC_URL, else this data dir's server  --server http://localhost:3000
  --api-key KEY|-          default $CARDSHOT_KEY; - reads standard input             --api-key -`;

/**
 * A client for the server the command line names (--server, else the address this data dir's
 * server writes when it listens) with the key it names (--api-key, `-` for standard input, else
 * CARDSHOT_KEY). Busy answers (429, 503) are waited out a few times.
 */
export async function remoteClient(
  flags: { server?: string | undefined; 'api-key'?: string | undefined },
  io: ShotIo,
): Promise<Cardshot> {
  const given = flags['api-key'];
  const apiKey = given === '-' ? (await io.readStdin()).trim() : (given ?? apiKeyFromEnv());
  if (!apiKey) {
    throw new UsageError(
      'no API key: export CARDSHOT_KEY=cs_… (`npx cardshot keys create` makes one) or pass --api-key',
    );
  }
  const baseUrl = flags.server ?? linkOrigin(loadCliConfig(io.stderr, { refuse: false }));
  try {
    new URL(baseUrl);
  } catch {
    throw new UsageError(`--server must be an absolute URL such as http://localhost:3000 (got "${baseUrl}")`);
  }
  return new Cardshot({ baseUrl, apiKey, retries: 3, maxRetryDelayMs: 60_000, timeoutMs: 60_000 });
}

/**
 * Runs a remote command and turns its failures into what every command prints: a usage error
 * (exit 2, with the help), a configuration error (78), or the server's refusal in one line with
 * its status and request id (exit 1), plus a hint when the server did not answer at all.
 */
export async function runRemote(
  name: string,
  help: string,
  io: ShotIo,
  body: () => Promise<number>,
): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr.write(`cardshot ${name}: ${err.message}\n\n${help}\n`);
      return 2;
    }
    if (err instanceof ConfigError) {
      io.stderr.write(`cardshot ${name}: configuration error: ${err.message}\n`);
      return 78;
    }
    if (err instanceof CardshotError) {
      const hint =
        err.code === 'network'
          ? '\nIs Cardshot running there? Start it with `npm start`, or give --server URL.'
          : '';
      io.stderr.write(`cardshot ${name}: ${printable(describeFailure(err))}${hint}\n`);
      return 1;
    }
    throw err;
  }
}

/**
 * The shared first step of a command with verbs (`jobs get ID`, `webhooks rotate ID`): prints the
 * command's or the verb's help (exit 0 when asked, 2 when no verb was given), else the verb to
 * run. Every verb but `list` (and those in `withoutId`) needs an id; `needsId` says what the
 * user left out.
 */
export function pickVerb<V>(
  verbs: Readonly<Record<string, V>>,
  verbHelp: Readonly<Record<string, string>>,
  parsed: { help: boolean; positionals: readonly string[] },
  io: ShotIo,
  command: { help: string; needsId(verb: string): string; withoutId?: readonly string[] },
): { exit: number } | { run: V; verb: string } {
  const [verb, id] = parsed.positionals;
  if (parsed.help || verb === undefined) {
    const one = verb === undefined ? undefined : verbHelp[verb];
    io.stdout.write(`${one ?? command.help}\n`);
    return { exit: verb === undefined && !parsed.help ? 2 : 0 };
  }
  const run = Object.hasOwn(verbs, verb) ? verbs[verb] : undefined;
  if (!run) throw new UsageError(`unknown subcommand "${printable(verb)}"`);
  const idless = verb === 'list' || (command.withoutId?.includes(verb) ?? false);
  if (!idless && !id) throw new UsageError(command.needsId(verb));
  return { run, verb };
}
