/**
 * Font files for the upload tests, made from the bundled npm fonts at test time (the OpenType
 * one is a committed subset, see test/fixtures/fonts/README.md), and hostile variants of them.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { inflateSync } from 'node:zlib';

const require = createRequire(import.meta.url);
const fontsource = (pkg: string, file: string) =>
  readFileSync(path.join(path.dirname(require.resolve(`@fontsource/${pkg}/package.json`)), 'files', file));

/** Source Serif 4 Bold, Latin only: visibly unlike Inter, and without a single CJK or Arabic glyph. */
export const serifWoff2 = () => fontsource('source-serif-4', 'source-serif-4-latin-700-normal.woff2');
export const serifWoff = () => fontsource('source-serif-4', 'source-serif-4-latin-700-normal.woff');
/** The same font unpacked from its WOFF: a TrueType (.ttf) file. */
export const serifTtf = () => woffToSfnt(serifWoff());
/** Noto Sans Regular, ASCII only, CFF outlines: an OpenType (.otf) file. */
export const notoOtf = () =>
  readFileSync(path.join(import.meta.dirname, '..', 'fixtures', 'fonts', 'NotoSans-Regular-ascii.otf'));
/** Inter's variable font (wght 100-900, opsz). */
export const interVariable = () =>
  readFileSync(
    path.join(path.dirname(require.resolve('inter-ui/package.json')), 'variable', 'InterVariable.woff2'),
  );

/** Unpacks a WOFF 1 file into the TrueType/OpenType file it wraps. */
export function woffToSfnt(woff: Buffer): Buffer {
  const numTables = woff.readUInt16BE(12);
  const tables = Array.from({ length: numTables }, (_, i) => {
    const e = 44 + i * 20;
    const offset = woff.readUInt32BE(e + 4);
    const comp = woff.readUInt32BE(e + 8);
    const orig = woff.readUInt32BE(e + 12);
    const raw = woff.subarray(offset, offset + comp);
    return {
      tag: woff.subarray(e, e + 4),
      checksum: woff.readUInt32BE(e + 16),
      data: comp < orig ? inflateSync(raw) : raw,
    };
  });
  const header = Buffer.alloc(12 + numTables * 16);
  woff.copy(header, 0, 4, 8); // flavor
  header.writeUInt16BE(numTables, 4);
  let pow = 1;
  let log = 0;
  while (pow * 2 <= numTables) {
    pow *= 2;
    log++;
  }
  header.writeUInt16BE(pow * 16, 6);
  header.writeUInt16BE(log, 8);
  header.writeUInt16BE(numTables * 16 - pow * 16, 10);
  const bodies: Buffer[] = [];
  let offset = header.length;
  tables.forEach((t, i) => {
    const r = 12 + i * 16;
    t.tag.copy(header, r);
    header.writeUInt32BE(t.checksum, r + 4);
    header.writeUInt32BE(offset, r + 8);
    header.writeUInt32BE(t.data.length, r + 12);
    const padded = Buffer.alloc((t.data.length + 3) & ~3);
    t.data.copy(padded);
    bodies.push(padded);
    offset += padded.length;
  });
  return Buffer.concat([header, ...bodies]);
}

/** The offset of table `tag` in a TrueType/OpenType file. */
export function tableOffset(sfnt: Buffer, tag: string): { record: number; offset: number; length: number } {
  const n = sfnt.readUInt16BE(4);
  for (let i = 0; i < n; i++) {
    const r = 12 + i * 16;
    if (sfnt.toString('latin1', r, r + 4) === tag) {
      return { record: r, offset: sfnt.readUInt32BE(r + 8), length: sfnt.readUInt32BE(r + 12) };
    }
  }
  throw new Error(`no ${tag} table`);
}

/** Hostile and broken files, each with the exact reason the API must give. */
export function hostileFonts(): { name: string; file: Buffer; reason: string }[] {
  const ttf = serifTtf();
  const woff2 = serifWoff2();

  const truncated = ttf.subarray(0, Math.floor(ttf.length / 2));
  const glyf = tableOffset(ttf, 'glyf');
  const truncatedReason = `font rejected: TrueType table 'glyf' (offset ${glyf.offset}, ${glyf.length} bytes) runs past the end of the ${truncated.length}-byte file (truncated or a bad offset)`;

  const badOffset = Buffer.from(ttf);
  const cmap = tableOffset(badOffset, 'cmap');
  badOffset.writeUInt32BE(0x7fff0000, cmap.record + 8);

  const bomb = Buffer.from(woff2);
  bomb.writeUInt32BE(2 * 1024 * 1024 * 1024, 16);

  const manyGlyphs = Buffer.from(ttf);
  manyGlyphs.writeUInt16BE(65535, tableOffset(manyGlyphs, 'maxp').offset + 4);

  const noCmap = Buffer.from(ttf);
  noCmap.write('xmap', cmap.record, 'latin1');

  const png = Buffer.from(
    'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
    'base64',
  );
  const zip = Buffer.concat([Buffer.from('PK\u0003\u0004', 'latin1'), Buffer.alloc(200, 1)]);

  return [
    {
      name: 'a ZIP archive renamed .ttf',
      file: zip,
      reason:
        'font rejected: not a font file (it is a ZIP archive): WOFF2, WOFF, TrueType (.ttf) or OpenType (.otf) expected',
    },
    {
      name: 'a PNG renamed .ttf',
      file: png,
      reason:
        'font rejected: not a font file (it is a PNG image): WOFF2, WOFF, TrueType (.ttf) or OpenType (.otf) expected',
    },
    { name: 'a truncated TrueType file', file: truncated, reason: truncatedReason },
    {
      name: 'a table offset past the end',
      file: badOffset,
      reason: `font rejected: TrueType table 'cmap' (offset ${0x7fff0000}, ${cmap.length} bytes) runs past the end of the ${ttf.length}-byte file (truncated or a bad offset)`,
    },
    {
      name: 'a WOFF2 decompression bomb claiming 2 GB',
      file: bomb,
      reason:
        'font rejected: WOFF2 claims to unpack to 2048 MB; at most 64 MB is accepted (a decompression bomb?)',
    },
    {
      name: 'a truncated WOFF2',
      file: woff2.subarray(0, 5000),
      reason: `font rejected: WOFF2 header says the file is ${woff2.length} bytes but it is 5000 (truncated or padded)`,
    },
    {
      name: 'a font claiming 65,535 glyphs',
      file: manyGlyphs,
      reason: 'font rejected: the font has 65,535 glyphs; at most 50,000 are accepted',
    },
    {
      name: 'a font without a cmap table',
      file: noCmap,
      reason: "font rejected: the font has no 'cmap' table",
    },
    {
      name: 'a font collection',
      file: Buffer.concat([Buffer.from('ttcf', 'latin1'), Buffer.alloc(100)]),
      reason: 'font rejected: font collections (.ttc) are not accepted; upload each font of it on its own',
    },
    {
      name: 'twelve bytes of nothing',
      file: Buffer.alloc(12),
      reason: 'font rejected: not a font file: WOFF2, WOFF, TrueType (.ttf) or OpenType (.otf) expected',
    },
  ];
}
