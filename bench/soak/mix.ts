/**
 * What the soak sends. Two profiles:
 * - `mixed` (issue 16): new and cached cards, screenshots of plain and hostile fixture pages,
 *   bad requests;
 * - `cards` (issue 26 §5, "memory that levels off"): cards at the full rate the server can
 *   draw them, across the three built-in templates, all five sizes, the account's brand theme
 *   (with a logo) and `theme=none`, png/webp/jpeg, `imageUrl` artwork from a loopback server
 *   (repeats and new URLs), plus a few screenshot cache hits and bad requests.
 */

export type Kind = 'card-new' | 'card-cached' | 'card-artwork' | 'shot' | 'shot-hostile' | 'bad';
export type Profile = 'mixed' | 'cards';

export const PROFILES: Record<Profile, Array<[Kind, number]>> = {
  mixed: [
    ['card-new', 25],
    ['card-cached', 30],
    ['shot', 20],
    ['shot-hostile', 10],
    ['bad', 15],
  ],
  cards: [
    ['card-new', 55],
    ['card-artwork', 20],
    ['card-cached', 15],
    ['shot', 5],
    ['bad', 5],
  ],
};

const PLAIN_PAGES = ['/split', '/wide', '/fluid', '/split-mobile', '/font'];
const HOSTILE_PAGES = [
  '/spin',
  '/spin-after-load',
  '/never',
  '/hog',
  '/reloads',
  '/dialog',
  '/popup',
  '/download',
  '/tall',
  '/moves?after=100',
  '/status/500',
  '/empty/404',
];
const TEMPLATES = ['blog', 'product', 'saas'];
/** Templates that draw `imageUrl`. */
const ARTWORK_TEMPLATES = ['product', 'saas'];
const SIZES = ['og', 'twitter', 'square', 'linkedin', 'story'];
const WORDS = ['Ship', 'faster', 'with', 'cards', 'that', 'fit', 'every', 'feed', 'and', 'brand'];

const pick = <T>(xs: readonly T[]): T => xs[Math.floor(Math.random() * xs.length)]!;

/** A kind drawn at random by the profile's weights. */
export function pickKind(profile: Profile): Kind {
  const mix = PROFILES[profile];
  let r = Math.random() * mix.reduce((s, [, w]) => s + w, 0);
  for (const [k, w] of mix) {
    r -= w;
    if (r < 0) return k;
  }
  return 'bad';
}

export interface Targets {
  auth: Record<string, string>;
  /** The fixture pages' base URL. */
  pages: string;
  /** The artwork server's base URL and paths. */
  artwork: { url: string; paths: readonly string[] };
}

/** Builds requests; `uniq` makes each "new" card or URL one the server has not seen. */
export function createRequests(profile: Profile, t: Targets) {
  let uniq = 0;
  const card = (params: Record<string, string>) => ({
    url: `/render/template?${new URLSearchParams(params)}`,
    init: { headers: t.auth } as RequestInit,
  });
  const shot = (page: string) => ({
    url: `/render/url?${new URLSearchParams({ url: `${t.pages}${page}`, viewport: 'desktop' })}`,
    init: { headers: t.auth } as RequestInit,
  });
  const withQuery = (page: string, q: string) => `${page}${page.includes('?') ? '&' : '?'}${q}`;
  // The cards profile varies what a card is made of; the mixed one keeps issue 16's two cards.
  const looks = (): Record<string, string> => {
    if (profile === 'mixed') return { template: 'blog' };
    const r = Math.random();
    return {
      template: pick(TEMPLATES),
      size: pick(SIZES),
      ...(Math.random() < 0.5 ? { theme: 'none' } : {}),
      ...(r < 0.1 ? { format: 'webp' } : r < 0.2 ? { format: 'jpeg' } : {}),
    };
  };
  const title = () => Array.from({ length: 3 + Math.floor(Math.random() * 8) }, () => pick(WORDS)).join(' ');

  return (kind: Kind): { url: string; init: RequestInit } => {
    switch (kind) {
      case 'card-new':
        return card({
          ...looks(),
          title: `${title()} ${uniq++}`,
          ...(profile === 'cards' && Math.random() < 0.5 ? { subtitle: title(), brand: 'Soak' } : {}),
        });
      case 'card-cached':
        return card(
          profile === 'mixed'
            ? { template: 'saas', title: `Cached ${Math.floor(Math.random() * 5)}` }
            : {
                template: pick(TEMPLATES),
                size: pick(SIZES),
                title: `Cached ${Math.floor(Math.random() * 5)}`,
              },
        );
      case 'card-artwork': {
        // Half the images are new URLs (a download and a decode), half ten URLs over and over.
        const n = Math.random() < 0.5 ? `new-${uniq++}` : `r${Math.floor(Math.random() * 10)}`;
        return card({
          ...looks(),
          template: pick(ARTWORK_TEMPLATES),
          title: `${title()} ${uniq++}`,
          imageUrl: `${t.artwork.url}${pick(t.artwork.paths)}?n=${n}`,
        });
      }
      case 'shot': {
        // One in five a new URL (a capture), the rest repeats (cache hits).
        const page = pick(PLAIN_PAGES);
        return shot(Math.random() < 0.2 ? withQuery(page, `n=${uniq++}`) : page);
      }
      case 'shot-hostile':
        return shot(withQuery(pick(HOSTILE_PAGES), `n=${uniq++}`));
      case 'bad':
        return pick([
          { url: '/render/template?template=blog&title=No%20key', init: {} },
          { url: '/render/template?template=nope&title=x', init: { headers: t.auth } },
          {
            url: `/render/url?${new URLSearchParams({ url: 'ftp://example.com/' })}`,
            init: { headers: t.auth },
          },
          {
            url: '/render/template',
            init: {
              method: 'POST',
              headers: { ...t.auth, 'content-type': 'application/json' },
              body: '{"template":',
            },
          },
          { url: '/no/such/route', init: { headers: t.auth } },
        ]);
    }
  };
}
