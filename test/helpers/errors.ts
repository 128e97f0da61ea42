import { expect } from 'vitest';

/** An answer from `app.inject()` or from `fetch()`. */
type Answer =
  | { statusCode: number; headers: Record<string, unknown>; json(): unknown }
  | { status: number; headers: Headers; json(): Promise<unknown> };

/**
 * What every refusal must look like on the wire (spec §2): the status, a JSON content type and
 * exactly `{ "error": message }` (a string, or an asymmetric matcher such as
 * `expect.stringContaining`). The status is checked first, so a wrong one fails with its number.
 */
export async function expectError(res: Answer, status: number, message: unknown): Promise<void> {
  const got = 'statusCode' in res ? res.statusCode : res.status;
  expect(got).toBe(status);
  const type = 'statusCode' in res ? res.headers['content-type'] : res.headers.get('content-type');
  expect(String(type)).toMatch(/^application\/json/);
  expect(await res.json()).toEqual({ error: message });
}
