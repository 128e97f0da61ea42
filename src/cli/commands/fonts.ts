import { readFile } from 'node:fs/promises';
import type { Font } from '../../client/fonts.js';
import { parseVerbArgs, table, UsageError } from '../admin.js';
import { printable } from '../printable.js';
import { pickVerb, remoteClient, runRemote, SERVER_FLAGS, SERVER_HELP } from '../remote.js';
import { processIo, type ShotIo } from '../shot/io.js';

/** Each subcommand's help, shown by `fonts <verb> --help`. */
const VERB_HELP: Record<string, string> = {
  add: `  npx cardshot fonts add FILE [--family NAME] [--json]
      Uploads a font (.woff2, .woff, .ttf, .otf; variable fonts too). The server checks it
      before keeping it; --family names it (default: the family the file gives itself).`,
  list: `  npx cardshot fonts list [--json]
      The account's fonts: id, family, weight, format, size.`,
  remove: `  npx cardshot fonts remove ID
      Deletes the font: cards set in it fall back to the bundled fonts.`,
};

const HELP = `Fonts of your account, through a running Cardshot server.

${Object.values(VERB_HELP).join('\n')}

${SERVER_HELP}

Name an uploaded family in your theme (npx cardshot theme set --font-family NAME) to set your
cards in it. Exit status: 0 on success, 1 when the server refused (its message is printed), 2 for
a command line that cannot work.`;

const FLAGS = {
  ...SERVER_FLAGS,
  family: { type: 'string' },
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
} as const;

type Flags = { family?: string | undefined; json?: boolean | undefined };
type Client = Awaited<ReturnType<typeof remoteClient>>;
type Verb = (c: Client, args: { id: string; v: Flags; io: ShotIo }) => Promise<number>;

const print = (io: ShotIo, v: Flags, value: unknown, text: string) => {
  io.stdout.write(v.json ? `${JSON.stringify(value)}\n` : `${text}\n`);
  return 0;
};

const VERBS: Record<string, Verb> = {
  async add(c, { id: file, v, io }) {
    const data = await readFile(file).catch((err: NodeJS.ErrnoException) => {
      throw new UsageError(`cannot read ${file}: ${err.code ?? err.message}`);
    });
    const font = await c.fonts.add(data, v.family === undefined ? {} : { family: v.family });
    return print(io, v, font, `Font ${font.id}: ${describe(font)}`);
  },
  async list(c, { v, io }) {
    const list = await c.fonts.list();
    const text = list.length === 0 ? 'No fonts yet: npx cardshot fonts add FILE' : fontTable(list);
    return print(io, v, list, text);
  },
  async remove(c, { id, v, io }) {
    await c.fonts.remove(id);
    return print(io, v, { id, removed: true }, `Removed ${printable(id)}.`);
  },
};

/** `cardshot fonts add|list|remove`. */
export async function runFonts(argv: string[], io: ShotIo = processIo): Promise<number> {
  return runRemote('fonts', HELP, io, async () => {
    const { values: v, positionals } = parseVerbArgs(argv, FLAGS);
    const picked = pickVerb(VERBS, VERB_HELP, { help: Boolean(v.help), positionals }, io, {
      help: HELP,
      needsId: (verb) =>
        verb === 'add' ? 'fonts add needs the font file' : `fonts ${verb} needs the font id (font_…)`,
    });
    if ('exit' in picked) return picked.exit;
    const [, id] = positionals;
    return picked.run(await remoteClient(v, io), { id: id ?? '', v, io });
  });
}

function describe(f: Font): string {
  const weight =
    f.weightRange[0] === f.weightRange[1] ? String(f.weight) : `${f.weightRange[0]}-${f.weightRange[1]}`;
  return `${printable(f.family)} ${weight}${f.style === 'italic' ? ' italic' : ''} (${f.format}, ${f.glyphs} glyphs, ${f.size} bytes)`;
}

function fontTable(list: readonly Font[]): string {
  return table([
    ['ID', 'FAMILY', 'WEIGHT', 'STYLE', 'FORMAT', 'SIZE'],
    ...list.map((f) => [
      f.id,
      printable(f.family),
      f.weightRange[0] === f.weightRange[1] ? String(f.weight) : `${f.weightRange[0]}-${f.weightRange[1]}`,
      f.style,
      f.format,
      String(f.size),
    ]),
  ]);
}
