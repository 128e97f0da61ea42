import type { Kysely, Selectable } from 'kysely';
import type { Tables } from '../storage/tables.js';
import type { FontFormat } from './sniff.js';
import type { FontRecord, FontStore } from './types.js';

/** The `fonts` table (migration 010). */
type FontTables = {
  fonts: {
    id: string;
    account_id: string;
    family: string;
    family_key: string;
    weight: number;
    weight_min: number;
    weight_max: number;
    italic: number;
    format: string;
    axes: string;
    glyphs: number;
    size: number;
    sha256: string;
    data: Buffer;
    metrics: Buffer;
    created_at: number;
  };
};

const LISTED = [
  'id',
  'account_id',
  'family',
  'family_key',
  'weight',
  'weight_min',
  'weight_max',
  'italic',
  'format',
  'axes',
  'glyphs',
  'size',
  'sha256',
  'created_at',
] as const;

/** The font store over the service's database (SQLite or PostgreSQL). */
export function createFontStore(base: Kysely<Tables>): FontStore {
  const db = base.withTables<FontTables>() as unknown as Kysely<FontTables>;
  return {
    async listFonts(accountId) {
      const rows = await db
        .selectFrom('fonts')
        .select(LISTED)
        .where('account_id', '=', accountId)
        .orderBy('family_key')
        .orderBy('weight')
        .orderBy('created_at')
        .execute();
      return rows.map(toRecord);
    },

    async countFonts(accountId) {
      const row = await db
        .selectFrom('fonts')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('account_id', '=', accountId)
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },

    async insertFont(f) {
      await db
        .insertInto('fonts')
        .values({
          id: f.id,
          account_id: f.accountId,
          family: f.family,
          family_key: familyKey(f.family),
          weight: f.weight,
          weight_min: f.weightRange[0],
          weight_max: f.weightRange[1],
          italic: f.italic ? 1 : 0,
          format: f.format,
          axes: f.axes.join(','),
          glyphs: f.glyphs,
          size: f.size,
          sha256: f.sha256,
          data: f.data,
          metrics: f.metrics,
          created_at: f.createdAt,
        })
        .execute();
    },

    async deleteFont(accountId, id) {
      const r = await db
        .deleteFrom('fonts')
        .where('account_id', '=', accountId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(r.numDeletedRows) > 0;
    },

    async familyFonts(accountId, family) {
      const rows = await db
        .selectFrom('fonts')
        .selectAll()
        .where('account_id', '=', accountId)
        .where('family_key', '=', familyKey(family))
        .orderBy('weight')
        .orderBy('created_at')
        .execute();
      return rows.map((r) => ({
        ...toRecord(r),
        // Both drivers hand back a Buffer; a copy detaches it from pooled memory.
        data: Buffer.from(r.data),
        metrics: Buffer.from(r.metrics),
      }));
    },
  };
}

/** How families are compared: trimmed, lower case (CSS matches family names without case). */
export function familyKey(family: string): string {
  return family.trim().toLowerCase();
}

function toRecord(r: Pick<Selectable<FontTables['fonts']>, (typeof LISTED)[number]>): FontRecord {
  return {
    id: r.id,
    accountId: r.account_id,
    family: r.family,
    weight: Number(r.weight),
    weightRange: [Number(r.weight_min), Number(r.weight_max)],
    italic: Number(r.italic) === 1,
    format: r.format as FontFormat,
    axes: r.axes === '' ? [] : r.axes.split(','),
    glyphs: Number(r.glyphs),
    size: Number(r.size),
    sha256: r.sha256,
    createdAt: Number(r.created_at),
  };
}
