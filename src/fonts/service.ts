/**
 * Fonts uploaded per account: each checked as hostile input before it is kept (probe.ts), at most
 * `fontsPerAccount` of them, and resolved per card by family name within the caller's account
 * only. Another account's family name resolves to nothing, exactly like a name nobody uploaded,
 * so a theme naming it falls back to the bundled fonts and learns nothing.
 */
import { createHash, randomBytes } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '../errors.js';
import { type Clock, systemClock } from '../lib/clock.js';
import { createWorkQueue } from '../lib/work-queue.js';
import type { CardFont } from '../render/template/types.js';
import type { FontConfig } from '../themes/settings.js';
import { cardFont, familyProblem, fontBytes } from './family.js';
import { encodeMetrics } from './metrics.js';
import { FontRejected, PROBE_DEFAULTS, probeFont } from './probe.js';
import { familyKey } from './store.js';
import type { FontRecord, FontStore } from './types.js';

export interface FontService {
  /** Checks and keeps a font; `family` overrides the name the file gives itself. */
  add(accountId: string, file: Buffer, family?: string): Promise<FontRecord>;
  list(accountId: string): Promise<FontRecord[]>;
  /** True when the account had a font by that id. */
  remove(accountId: string, id: string): Promise<boolean>;
  /** The account's family by name (any case), or undefined when it has none by that name. */
  resolve(accountId: string, family: string): Promise<CardFont | undefined>;
  /** The bounds an upload is held to (the route's body limit is `maxBytes`). */
  readonly limits: { maxBytes: number; perAccount: number };
  close(): Promise<void>;
}

/** Resolved families kept per node: bytes of their files. */
const CACHE_BYTES = 96 * 1024 * 1024;

/** Creates the account font service over `store`. */
export function createFontService(
  config: FontConfig,
  deps: { store: FontStore; clock?: Clock },
): FontService {
  const clock = deps.clock ?? systemClock;
  const ttl = config.themeCacheSeconds * 1000;
  const cache = new LRUCache<string, { font: CardFont | null; at: number }>({
    maxSize: CACHE_BYTES,
    sizeCalculation: (e) => 256 + (e.font ? fontBytes(e.font) : 0),
  });
  let generation = 0;
  // Checking a font is seconds of CPU at worst: two at a time per node, one per account.
  const checks = createWorkQueue({ name: 'font checks', concurrency: 2, maxWaiting: 16 });
  const limits = { ...PROBE_DEFAULTS, maxGlyphs: config.fontMaxGlyphs };
  const forget = (accountId: string) => {
    generation++;
    for (const key of cache.keys()) if (key.startsWith(`${accountId}\u0000`)) cache.delete(key);
  };

  return {
    limits: { maxBytes: config.fontMaxBytes, perAccount: config.fontsPerAccount },

    async add(accountId, file, family) {
      if (file.length > config.fontMaxBytes) {
        throw new AppError('payload_too_large', tooLarge(config.fontMaxBytes));
      }
      if (family !== undefined) checkFamily(family.trim());
      if ((await deps.store.countFonts(accountId)) >= config.fontsPerAccount) {
        throw new AppError(
          'conflict',
          `This account already has ${config.fontsPerAccount} fonts, the most it may keep; remove one first`,
        );
      }
      const owner = { id: accountId, concurrency: 1, maxWaiting: 1, overShare: busy };
      const info = await checks.run(
        () =>
          probeFont(file, limits).catch((err: unknown) => {
            if (err instanceof FontRejected)
              throw new AppError('bad_request', `font rejected: ${err.message}`);
            throw err;
          }),
        undefined,
        owner,
      );
      const name = (family ?? info.family).trim();
      if (family === undefined) {
        if (name === '') throw new AppError('bad_request', 'the font names no family; give one with family=');
        checkFamily(name);
      }
      const record: FontRecord = {
        id: `font_${randomBytes(12).toString('base64url')}`,
        accountId,
        family: name,
        weight: info.weight,
        weightRange: info.weightRange,
        italic: info.italic,
        format: info.format,
        axes: info.axes,
        glyphs: info.glyphs,
        size: file.length,
        sha256: createHash('sha256').update(file).digest('hex'),
        createdAt: clock.now(),
      };
      const siblings = await deps.store.familyFonts(accountId, name);
      const same = siblings.find((f) => f.weight === record.weight && f.italic === record.italic);
      if (same) {
        throw new AppError(
          'conflict',
          `family "${same.family}" already has a ${same.weight}${same.italic ? ' italic' : ''} face (${same.id}); remove it first`,
        );
      }
      // Re-counted after the (slow) check: two uploads racing past the first count.
      if ((await deps.store.countFonts(accountId)) >= config.fontsPerAccount) {
        throw new AppError(
          'conflict',
          `This account already has ${config.fontsPerAccount} fonts, the most it may keep; remove one first`,
        );
      }
      await deps.store.insertFont({ ...record, data: file, metrics: encodeMetrics(info) });
      forget(accountId);
      return record;
    },

    list: (accountId) => deps.store.listFonts(accountId),

    async remove(accountId, id) {
      const had = await deps.store.deleteFont(accountId, id);
      forget(accountId);
      return had;
    },

    async resolve(accountId, family) {
      const key = `${accountId}\u0000${familyKey(family)}`;
      const now = clock.now();
      const hit = cache.get(key);
      if (hit && now - hit.at < ttl) return hit.font ?? undefined;
      const started = generation;
      const faces = await deps.store.familyFonts(accountId, family);
      const font = faces.length > 0 ? cardFont(faces[0]!.family, faces) : null;
      if (started === generation) cache.set(key, { font, at: now });
      return font ?? undefined;
    },

    async close() {
      cache.clear();
      await checks.close();
    },
  };
}

/** The 413 message, the same from the route's body limit and from here. */
export function tooLarge(maxBytes: number): string {
  const mb = maxBytes / 1024 / 1024;
  return `font must be at most ${Number.isInteger(mb) ? `${mb} MB` : `${maxBytes} bytes`} (${maxBytes} bytes)`;
}

function checkFamily(family: string): void {
  const problem = familyProblem(family);
  if (problem) throw new AppError('bad_request', problem);
}

function busy(): AppError {
  return new AppError('rate_limited', 'A font for this account is already being checked; retry shortly', {
    retryAfter: 2,
  });
}
