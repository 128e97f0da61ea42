import type { FieldSpec } from '../types.js';

/** The fields every built-in declares (the spec's template request: title ≤ 200, subtitle ≤ 300). */
export const BUILTIN_FIELDS: Readonly<Record<string, FieldSpec>> = Object.freeze({
  title: { type: 'text', required: true, maxLength: 200, description: 'Main headline drawn on the image.' },
  subtitle: { type: 'text', maxLength: 300, description: 'Supporting text drawn under the title.' },
});
