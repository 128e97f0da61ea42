/**
 * The first look at an uploaded font, before any parser sees it: the container's signature and the
 * sizes its header claims. A parser trusts those sizes (WOFF2's `totalSfntSize` is the buffer it
 * allocates for the decompressed font), so a 20 KB file claiming 2 GB is refused here, by
 * arithmetic, instead of by running out of memory.
 */

/** The containers Cardshot accepts. */
export type FontFormat = 'woff2' | 'woff' | 'ttf' | 'otf';

/** What the header says; every claim checked against the file's own length and the limits. */
export interface Sniffed {
  format: FontFormat;
  /** The size of the font once unpacked (the file's own for TrueType and OpenType). */
  sfntBytes: number;
}

/** A refusal: the message is the reason the client sees in the 400. */
export class FontRejected extends Error {
  override readonly name = 'FontRejected';
}

/** Largest unpacked font accepted: a 10 MB WOFF2 of a big CJK family unpacks to ~25 MB. */
export const MAX_SFNT_BYTES = 64 * 1024 * 1024;
/** Real fonts have 10-30 tables; a directory of thousands is a parser stress test. */
const MAX_TABLES = 64;

/** What a file that is not a font usually is, for a message that says what was sent instead. */
const IMPOSTORS: readonly [prefix: string, what: string][] = [
  ['PK\u0003\u0004', 'a ZIP archive'],
  ['\u0089PNG', 'a PNG image'],
  ['\u00ff\u00d8\u00ff', 'a JPEG image'],
  ['GIF8', 'a GIF image'],
  ['%PDF', 'a PDF document'],
  ['\u001f\u008b', 'a gzip file'],
  ['<', 'text (HTML, XML or SVG)'],
  ['{', 'text (JSON)'],
];

/** Checks the signature and header of `file`; throws FontRejected with the reason. */
export function sniffFont(file: Buffer): Sniffed {
  if (file.length < 12) throw new FontRejected('the file is too short to be a font');
  const tag = file.toString('latin1', 0, 4);
  if (tag === 'wOF2') return sniffWoff(file, 'woff2', 48);
  if (tag === 'wOFF') return sniffWoff(file, 'woff', 44);
  if (tag === 'OTTO') return sniffSfnt(file, 'otf');
  if (tag === '\u0000\u0001\u0000\u0000' || tag === 'true') return sniffSfnt(file, 'ttf');
  if (tag === 'ttcf') {
    throw new FontRejected('font collections (.ttc) are not accepted; upload each font of it on its own');
  }
  const impostor = IMPOSTORS.find(([prefix]) => file.toString('latin1', 0, prefix.length) === prefix);
  throw new FontRejected(
    `not a font file${impostor ? ` (it is ${impostor[1]})` : ''}: WOFF2, WOFF, TrueType (.ttf) or OpenType (.otf) expected`,
  );
}

function sniffWoff(file: Buffer, format: 'woff' | 'woff2', headerBytes: number): Sniffed {
  const name = format.toUpperCase();
  if (file.length < headerBytes) throw new FontRejected(`${name} header is truncated`);
  const length = file.readUInt32BE(8);
  if (length !== file.length) {
    throw new FontRejected(
      `${name} header says the file is ${length} bytes but it is ${file.length} (truncated or padded)`,
    );
  }
  const numTables = file.readUInt16BE(12);
  if (numTables === 0 || numTables > MAX_TABLES) {
    throw new FontRejected(`${name} header claims ${numTables} tables; a font has 1 to ${MAX_TABLES}`);
  }
  const sfntBytes = file.readUInt32BE(16);
  checkUnpacked(name, sfntBytes);
  if (format === 'woff') checkWoffTables(file, numTables);
  else {
    const compressed = file.readUInt32BE(20);
    if (compressed === 0 || compressed > file.length) {
      throw new FontRejected(`WOFF2 compressed data (${compressed} bytes) runs past the end of the file`);
    }
  }
  return { format, sfntBytes };
}

function checkUnpacked(name: string, bytes: number): void {
  if (bytes > MAX_SFNT_BYTES) {
    throw new FontRejected(
      `${name} claims to unpack to ${Math.round(bytes / 1024 / 1024)} MB; at most ${MAX_SFNT_BYTES / 1024 / 1024} MB is accepted (a decompression bomb?)`,
    );
  }
}

/** WOFF 1: each table's compressed slice must lie in the file, and the unpacked sizes add up. */
function checkWoffTables(file: Buffer, numTables: number): void {
  if (file.length < 44 + numTables * 20) throw new FontRejected('WOFF table directory is truncated');
  let total = 0;
  for (let i = 0; i < numTables; i++) {
    const e = 44 + i * 20;
    const tag = file.toString('latin1', e, e + 4);
    const offset = file.readUInt32BE(e + 4);
    const compLength = file.readUInt32BE(e + 8);
    const origLength = file.readUInt32BE(e + 12);
    if (offset + compLength > file.length) {
      throw new FontRejected(`WOFF table '${tag.trim()}' runs past the end of the file (truncated?)`);
    }
    if (compLength > origLength) {
      throw new FontRejected(`WOFF table '${tag.trim()}' is larger compressed than unpacked`);
    }
    total += origLength;
  }
  checkUnpacked('WOFF', total);
}

/** TrueType and OpenType: every table record must point inside the file. */
function sniffSfnt(file: Buffer, format: 'ttf' | 'otf'): Sniffed {
  const numTables = file.readUInt16BE(4);
  const name = format === 'otf' ? 'OpenType' : 'TrueType';
  if (numTables === 0 || numTables > MAX_TABLES) {
    throw new FontRejected(`${name} header claims ${numTables} tables; a font has 1 to ${MAX_TABLES}`);
  }
  if (file.length < 12 + numTables * 16) throw new FontRejected(`${name} table directory is truncated`);
  for (let i = 0; i < numTables; i++) {
    const r = 12 + i * 16;
    const tag = file.toString('latin1', r, r + 4);
    const offset = file.readUInt32BE(r + 8);
    const length = file.readUInt32BE(r + 12);
    if (offset + length > file.length) {
      throw new FontRejected(
        `${name} table '${tag.trim()}' (offset ${offset}, ${length} bytes) runs past the end of the ${file.length}-byte file (truncated or a bad offset)`,
      );
    }
  }
  checkUnpacked(name, file.length);
  return { format, sfntBytes: file.length };
}
