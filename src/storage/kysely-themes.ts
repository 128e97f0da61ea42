import type { Kysely, Selectable } from 'kysely';
import type { ThemeRecord, ThemeStore } from './store.js';
import type { Tables } from './tables.js';

/** The theme half of the kysely store: one row per account, replaced whole. */
export function createThemeStore(db: Kysely<Tables>): ThemeStore {
  return {
    async getTheme(accountId) {
      const r = await db
        .selectFrom('themes')
        .selectAll()
        .where('account_id', '=', accountId)
        .executeTakeFirst();
      return r && toTheme(r);
    },

    async setTheme(t) {
      const row = fromTheme(t);
      const { account_id: _id, ...changes } = row;
      await db
        .insertInto('themes')
        .values(row)
        .onConflict((oc) => oc.column('account_id').doUpdateSet(changes))
        .execute();
    },

    async clearTheme(accountId) {
      const result = await db.deleteFrom('themes').where('account_id', '=', accountId).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

function toTheme(r: Selectable<Tables['themes']>): ThemeRecord {
  const hasLogo =
    r.logo !== null && r.logo_width !== null && r.logo_height !== null && r.logo_sha256 !== null;
  return {
    accountId: r.account_id,
    background: r.background,
    text: r.text,
    accent: r.accent,
    font: r.font,
    ...(r.font_family ? { fontFamily: r.font_family } : {}),
    logo: hasLogo
      ? {
          // Both drivers hand back a Buffer; a copy detaches it from any pooled memory.
          data: Buffer.from(r.logo as Buffer),
          width: Number(r.logo_width),
          height: Number(r.logo_height),
          sha256: r.logo_sha256 as string,
        }
      : null,
    version: r.version,
    updatedAt: Number(r.updated_at),
  };
}

function fromTheme(t: ThemeRecord): Tables['themes'] {
  return {
    account_id: t.accountId,
    background: t.background,
    text: t.text,
    accent: t.accent,
    font: t.font,
    font_family: t.fontFamily ?? null,
    logo: t.logo?.data ?? null,
    logo_width: t.logo?.width ?? null,
    logo_height: t.logo?.height ?? null,
    logo_sha256: t.logo?.sha256 ?? null,
    version: t.version,
    updated_at: t.updatedAt,
  };
}
