import { brotliDecompressSync, inflateSync } from 'node:zlib';

/**
 * Just enough of WOFF, WOFF2 and the OpenType cmap table to learn which code points a font file
 * maps to a glyph. Nothing else of a font is read.
 */

/** Inclusive [first, last] code point pairs, sorted. */
export type Ranges = readonly (readonly [number, number])[];

/** Where a file keeps its cmap: compressed bytes, and for WOFF2 the table's slice of the stream. */
interface CmapLocation {
  data: Buffer;
  codec: 'none' | 'zlib' | 'brotli';
  offset: number;
  length: number;
}

/** The raw cmap table of a .woff or .woff2 file. */
export function cmapTable(file: Buffer): Buffer {
  const at = locateCmap(file);
  const raw =
    at.codec === 'zlib'
      ? inflateSync(at.data)
      : at.codec === 'brotli'
        ? brotliDecompressSync(at.data)
        : at.data;
  return raw.subarray(at.offset, at.offset + at.length);
}

function locateCmap(file: Buffer): CmapLocation {
  const signature = file.toString('latin1', 0, 4);
  if (signature === 'wOF2') return locateWoff2(file);
  if (signature !== 'wOFF') throw new Error('not a WOFF file');
  // WOFF 1: a 44-byte header, then 20-byte entries; each table compressed (zlib) on its own.
  const numTables = file.readUInt16BE(12);
  for (let i = 0; i < numTables; i++) {
    const e = 44 + i * 20;
    if (file.toString('latin1', e, e + 4) !== 'cmap') continue;
    const offset = file.readUInt32BE(e + 4);
    const compLength = file.readUInt32BE(e + 8);
    const origLength = file.readUInt32BE(e + 12);
    const data = file.subarray(offset, offset + compLength);
    return { data, codec: compLength < origLength ? 'zlib' : 'none', offset: 0, length: origLength };
  }
  throw new Error('WOFF: no cmap table');
}

/** WOFF2 (spec §5): a variable-length table directory, then every table in one brotli stream. */
function locateWoff2(file: Buffer): CmapLocation {
  const numTables = file.readUInt16BE(12);
  const compressedSize = file.readUInt32BE(20);
  let pos = 48;
  const base128 = () => {
    let value = 0;
    for (let i = 0; i < 5; i++) {
      const byte = file[pos++]!;
      value = value * 128 + (byte & 0x7f);
      if ((byte & 0x80) === 0) return value;
    }
    throw new Error('WOFF2: bad UIntBase128');
  };
  let offset = 0;
  let found: { offset: number; length: number } | undefined;
  for (let i = 0; i < numTables; i++) {
    const flags = file[pos++]!;
    const tagIndex = flags & 0x3f;
    let tag = '';
    if (tagIndex === 63) {
      tag = file.toString('latin1', pos, pos + 4);
      pos += 4;
    }
    const origLength = base128();
    const version = flags >> 6;
    // glyf and loca (indices 10, 11) are transformed at version 0; every other table at 1-3.
    const transformed = tagIndex === 10 || tagIndex === 11 ? version !== 3 : version !== 0;
    const length = transformed ? base128() : origLength;
    if (!found && (tagIndex === 0 || tag === 'cmap')) found = { offset, length };
    offset += length;
  }
  if (!found) throw new Error('WOFF2: no cmap table');
  return { data: file.subarray(pos, pos + compressedSize), codec: 'brotli', ...found };
}

/** The code points the cmap maps to a real glyph (not .notdef), from its best Unicode subtable, as sorted ranges. */
export function mappedRanges(cmap: Buffer): Ranges {
  const { format4, format12 } = unicodeSubtables(cmap);
  const out: [number, number][] = [];
  const add = (first: number, last: number) => {
    const prev = out[out.length - 1];
    if (prev && prev[1] + 1 === first) prev[1] = last;
    else out.push([first, last]);
  };
  if (format12 >= 0) format12Ranges(cmap, format12, add);
  else if (format4 >= 0) format4Ranges(cmap, format4, add);
  return out;
}

type AddRange = (first: number, last: number) => void;

/** Offsets of the last Unicode format 4 and format 12 subtables, -1 for none. */
function unicodeSubtables(cmap: Buffer): { format4: number; format12: number } {
  const count = cmap.readUInt16BE(2);
  let format4 = -1;
  let format12 = -1;
  for (let i = 0; i < count; i++) {
    const rec = 4 + i * 8;
    const platform = cmap.readUInt16BE(rec);
    const encoding = cmap.readUInt16BE(rec + 2);
    const at = cmap.readUInt32BE(rec + 4);
    const format = cmap.readUInt16BE(at);
    if (platform !== 0 && !(platform === 3 && (encoding === 1 || encoding === 10))) continue;
    if (format === 12) format12 = at;
    if (format === 4) format4 = at;
  }
  return { format4, format12 };
}

function format12Ranges(cmap: Buffer, at: number, add: AddRange): void {
  const groups = cmap.readUInt32BE(at + 12);
  for (let g = 0; g < groups; g++) {
    const e = at + 16 + g * 12;
    const first = cmap.readUInt32BE(e);
    const last = cmap.readUInt32BE(e + 4);
    // Glyph 0 is .notdef: a group starting there maps its first code point to a box.
    const skip = cmap.readUInt32BE(e + 8) === 0 ? 1 : 0;
    if (first + skip <= last) add(first + skip, last);
  }
}

function format4Ranges(cmap: Buffer, at: number, add: AddRange): void {
  const segments = cmap.readUInt16BE(at + 6) / 2;
  const ends = at + 14;
  const starts = ends + segments * 2 + 2;
  const deltas = starts + segments * 2;
  const rangeOffsets = deltas + segments * 2;
  for (let s = 0; s < segments; s++) {
    const last = Math.min(cmap.readUInt16BE(ends + s * 2), 0xfffe);
    const first = cmap.readUInt16BE(starts + s * 2);
    const delta = cmap.readUInt16BE(deltas + s * 2);
    const rangeOffset = cmap.readUInt16BE(rangeOffsets + s * 2);
    for (let cp = first; cp <= last; cp++) {
      let glyph: number;
      if (rangeOffset === 0) glyph = (cp + delta) & 0xffff;
      else {
        const raw = cmap.readUInt16BE(rangeOffsets + s * 2 + rangeOffset + (cp - first) * 2);
        glyph = raw === 0 ? 0 : (raw + delta) & 0xffff;
      }
      if (glyph !== 0) add(cp, cp);
    }
  }
}
