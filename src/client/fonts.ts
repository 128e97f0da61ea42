import { CardshotError } from './errors.js';
import { send, sendJson, type TransportOptions } from './transport.js';

/** An uploaded font as GET /fonts shows it. */
export interface Font {
  id: string;
  /** What a theme names in `fontFamily` (matched without regard to case). */
  family: string;
  weight: number;
  /** A variable font's `wght` axis [min, max]; a static font's weight twice. */
  weightRange: [number, number];
  style: 'normal' | 'italic';
  format: 'woff2' | 'woff' | 'ttf' | 'otf';
  axes: string[];
  glyphs: number;
  size: number;
  sha256: string;
  createdAt: string;
}

type Call = { signal?: AbortSignal };
const enc = encodeURIComponent;

/** The account's uploaded fonts (/fonts…). Reached as `cardshot.fonts`. */
export class FontsApi {
  constructor(private readonly t: TransportOptions) {}

  /**
   * POST /fonts: uploads a WOFF2, WOFF, TrueType or OpenType file (variable fonts too), checked
   * by the server before it is kept. `family` names it; without it the file's own family.
   */
  async add(data: Uint8Array, opts: { family?: string } & Call = {}): Promise<Font> {
    const query = opts.family === undefined ? '' : `?family=${enc(opts.family)}`;
    const res = await send(
      this.t,
      `/fonts${query}`,
      {
        method: 'POST',
        headers: { accept: 'application/json', 'content-type': 'application/octet-stream' },
        body: data as unknown as NonNullable<RequestInit['body']>,
      },
      opts,
    );
    try {
      return (await res.json()) as Font;
    } catch (err) {
      throw new CardshotError('Cardshot answered POST /fonts with something other than JSON', {
        status: res.status,
        code: 'http_error',
        cause: err,
      });
    }
  }

  /** GET /fonts: by family, then weight. */
  async list(call: Call = {}): Promise<Font[]> {
    return (await sendJson<{ fonts: Font[] }>(this.t, 'GET', '/fonts', undefined, call)).fonts;
  }

  /** DELETE /fonts/:id: cards drawn with it change at once. */
  async remove(id: string, call: Call = {}): Promise<void> {
    await sendJson<void>(this.t, 'DELETE', `/fonts/${enc(id)}`, undefined, call);
  }
}
