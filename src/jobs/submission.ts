/**
 * POST /jobs bodies: JSON `{"items": [...], "webhook"?, "metadata"?}`, or CSV (`text/csv`) with a
 * header row of field names, one item per row (its webhook in the `webhook` query parameter).
 */
import { parse as parseCsv } from 'csv-parse/sync';
import { type StoreRequest, takeStoreRequest } from '../delivery/request.js';
import { AppError } from '../errors.js';
import { CREDENTIAL_FIELDS } from '../render/screenshot/credentials.js';
import { MAX_METADATA_BYTES, type Submission } from './service.js';

const KEYS = ['items', 'webhook', 'metadata', 'store', 'storage'];

/** A JSON body's submission. */
export function readJsonSubmission(body: unknown): Submission {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw bad(
      'Request body must be a JSON object: {"items": [...], "webhook"?: "<endpoint id>", "metadata"?: {...}}',
    );
  }
  const record = body as Record<string, unknown>;
  const stray = Object.keys(record).find((k) => !KEYS.includes(k));
  if (stray !== undefined) {
    throw bad(`Unknown field ${JSON.stringify(stray.slice(0, 40))}. Allowed: ${KEYS.join(', ')}`);
  }
  if (!Array.isArray(record.items)) throw bad('items is required: a list of cards and screenshots');
  return {
    items: record.items,
    source: 'body',
    ...webhookOf(record.webhook),
    ...metadataOf(record.metadata),
    // Issue 31 §3: "store": "s3" (+ "storage"), checked as the synchronous routes check it.
    ...storeOf(record),
  };
}

/** A CSV body's submission: every row an item, empty cells left out. */
export function readCsvSubmission(text: string, query: Record<string, unknown>): Submission {
  const stray = Object.keys(query).find((k) => k !== 'webhook');
  if (stray !== undefined) {
    throw bad(`Unknown query parameter ${JSON.stringify(stray.slice(0, 40))}. Allowed with CSV: webhook`);
  }
  let rows: Array<Record<string, string>>;
  try {
    rows = parseCsv(text, { columns: csvColumns, skip_empty_lines: true, trim: true, bom: true });
  } catch (err) {
    if (err instanceof AppError) throw err;
    throw bad(`The CSV body cannot be read: ${(err as Error).message}`);
  }
  const items = rows.map((row) => Object.fromEntries(Object.entries(row).filter(([, v]) => v !== '')));
  return { items, source: 'query', ...webhookOf(query.webhook) };
}

/**
 * The header row, refused when it names a credential: a CSV file is passed around and kept in
 * clear (spreadsheets, shell history, CI logs), and a cell cannot hold an object anyway.
 */
function csvColumns(header: string[]): string[] {
  const named = header.filter((h) => (CREDENTIAL_FIELDS as readonly string[]).includes(h));
  if (named.length > 0) {
    throw bad(
      `The CSV header names ${named.join(', ')}: credentials (${CREDENTIAL_FIELDS.join(', ')}) cannot be given in a CSV body; submit the job as JSON ({"items": [...]}) to sign a screenshot in`,
    );
  }
  return header;
}

function webhookOf(v: unknown): { webhook?: string } {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'string' || v === '' || v.length > 64) {
    throw bad('webhook must be the id of one of your webhook endpoints (POST /webhooks)');
  }
  return { webhook: v };
}

function metadataOf(v: unknown): { metadata?: Record<string, unknown> } {
  if (v === undefined || v === null) return {};
  if (typeof v !== 'object' || Array.isArray(v)) throw bad('metadata must be a JSON object');
  const size = Buffer.byteLength(JSON.stringify(v));
  if (size > MAX_METADATA_BYTES) {
    throw bad(
      `metadata must be at most ${MAX_METADATA_BYTES} bytes of JSON (got ${size}): it is sent with every job event`,
    );
  }
  return { metadata: v as Record<string, unknown> };
}

function storeOf(record: Record<string, unknown>): { store?: NonNullable<StoreRequest> } {
  const { store } = takeStoreRequest({ store: record.store, storage: record.storage }, () => true);
  return store ? { store } : {};
}

function bad(message: string): AppError {
  return new AppError('bad_request', message);
}
