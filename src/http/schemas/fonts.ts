/**
 * The OpenAPI description of the account font routes. Documentation only: the route checks the
 * font itself (fonts/probe.ts) and these examples are its messages.
 */
import { Type } from 'typebox';
import {
  errorResponse,
  jsonResponse,
  KEY_SECURITY,
  RATE_LIMIT_HEADERS,
  REQUEST_ID,
  RETRY_AFTER,
} from './common.js';

const Font = Type.Object(
  {
    id: Type.String({ examples: ['font_Qm9vZ2x5LWJvb2dseQ'] }),
    family: Type.String({ description: 'What themes name (`fontFamily`), matched without regard to case.' }),
    weight: Type.Integer({ minimum: 1, maximum: 1000 }),
    weightRange: Type.Array(Type.Integer(), {
      minItems: 2,
      maxItems: 2,
      description: "A variable font's `wght` axis [min, max]; a static font's weight twice.",
    }),
    style: Type.String({ enum: ['normal', 'italic'] }),
    format: Type.String({ enum: ['woff2', 'woff', 'ttf', 'otf'] }),
    axes: Type.Array(Type.String(), {
      description: 'Variation axes (`wght`, `opsz`, …); empty for a static font.',
    }),
    glyphs: Type.Integer(),
    size: Type.Integer({ description: 'Bytes.' }),
    sha256: Type.String({ description: 'The file\u2019s content hash: part of every card drawn with it.' }),
    createdAt: Type.String({ format: 'date-time' }),
  },
  { $id: 'Font', title: 'Font' },
);

export const FONT_SCHEMAS = [Font];

const security = KEY_SECURITY;
const tags = ['Fonts'];
const json = jsonResponse;
const unauthorized = errorResponse(
  'No key, or a key that is not valid (a signed URL does not manage fonts).',
  {
    unauthorized: 'Missing or invalid API key',
  },
);
const tooMany = errorResponse(
  'The rate limit, or a font of this account already being checked.',
  {
    rate_limited: 'Rate limit exceeded',
    busy: 'A font for this account is already being checked; retry shortly',
  },
  { ...REQUEST_ID, ...RETRY_AFTER, ...RATE_LIMIT_HEADERS },
);

export const uploadFontSchema = {
  operationId: 'uploadFont',
  tags,
  security,
  summary: 'Upload a font (WOFF2, WOFF, TrueType, OpenType; variable fonts too)',
  description:
    'The body is the font file itself (any Content-Type but JSON, for example `font/woff2` or `application/octet-stream`). `family` names it; without it the family the file gives itself. The file is parsed and drawn with before it is kept: a damaged or hostile one is refused with the reason. Name the family in your theme (`fontFamily`) to set cards in it; characters it lacks fall back to the bundled Noto families.\n\n```bash\ncurl -sS -X POST "http://localhost:3000/fonts?family=Brand%20Sans" -H "x-api-key: $CARDSHOT_KEY" \\\n  -H \'content-type: font/woff2\' --data-binary @BrandSans-Bold.woff2\n```',
  querystring: Type.Object({ family: Type.Optional(Type.String({ maxLength: 64 })) }),
  response: {
    201: json('Kept.', Type.Ref('Font')),
    400: errorResponse('Not a font Cardshot can use, with the reason.', {
      notFont:
        'font rejected: not a font file (it is a ZIP archive): WOFF2, WOFF, TrueType (.ttf) or OpenType (.otf) expected',
      bomb: 'font rejected: WOFF2 claims to unpack to 2048 MB; at most 64 MB is accepted (a decompression bomb?)',
      truncated:
        "font rejected: TrueType table 'glyf' (offset 1804, 40000 bytes) runs past the end of the 20000-byte file (truncated or a bad offset)",
      glyphs: 'font rejected: the font has 65,535 glyphs; at most 50,000 are accepted',
      family: 'family "Inter" is a bundled family\u2019s name; upload under another name',
    }),
    401: unauthorized,
    409: errorResponse('The account keeps as many fonts as it may, or the family has this face already.', {
      full: 'This account already has 20 fonts, the most it may keep; remove one first',
      face: 'family "Brand Sans" already has a 700 face (font_Qm9vZ2x5LWJvb2dseQ); remove it first',
    }),
    413: errorResponse('The file is larger than CARDSHOT_FONT_MAX_BYTES.', {
      large: 'font must be at most 10 MB (10485760 bytes)',
    }),
    429: tooMany,
  },
};

export const listFontsSchema = {
  operationId: 'listFonts',
  tags,
  security,
  summary: "The account's uploaded fonts",
  response: {
    200: json('By family, then weight.', Type.Object({ fonts: Type.Array(Type.Ref('Font')) })),
    401: unauthorized,
    429: tooMany,
  },
};

export const deleteFontSchema = {
  operationId: 'deleteFont',
  tags,
  security,
  summary: 'Remove a font (cards drawn with it change at once: its hash leaves their ETag)',
  params: Type.Object({ id: Type.String({ description: 'The font id (font_…).' }) }),
  response: {
    204: { description: 'Removed.', headers: { ...REQUEST_ID } },
    401: unauthorized,
    404: errorResponse("No such font on this account (another account's fonts read as missing).", {
      missing: 'No font "font_Qm9vZ2x5LWJvb2dseQ"',
    }),
    429: tooMany,
  },
};
