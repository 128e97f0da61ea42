import type { FontFormat } from './sniff.js';

/** An uploaded font as the API lists it (no bytes). */
export interface FontRecord {
  id: string;
  accountId: string;
  family: string;
  weight: number;
  /** [min, max]: a variable font's `wght` axis, else the weight twice. */
  weightRange: [number, number];
  italic: boolean;
  format: FontFormat;
  /** Variation axes; empty for a static font. */
  axes: string[];
  glyphs: number;
  size: number;
  sha256: string;
  createdAt: number;
}

/** A stored font with its bytes and the widths the check read from it. */
export interface StoredFont extends FontRecord {
  data: Buffer;
  metrics: Buffer;
}

/** Where uploaded fonts are kept: per account, removed with it. */
export interface FontStore {
  listFonts(accountId: string): Promise<FontRecord[]>;
  countFonts(accountId: string): Promise<number>;
  insertFont(font: StoredFont): Promise<void>;
  /** Removes the account's font; false when it has none by that id (another account's included). */
  deleteFont(accountId: string, id: string): Promise<boolean>;
  /** Every face of one family of the account (matched without regard to case), with bytes. */
  familyFonts(accountId: string, family: string): Promise<StoredFont[]>;
}
