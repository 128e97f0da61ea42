/**
 * The faces that draw fitted text. Their advance widths, in thousandths of an em, for U+0020–U+017F
 * (ASCII, Latin-1, Latin Extended-A; `WIDTH_ROWS`) and for Greek, Cyrillic, Tamil, Khmer and
 * Arabic (`SCRIPT_ROWS`) are in widths.generated.ts, measured with takumi's own layout
 * (`measure`) from the registered @fontsource files by `npm run fonts:measure` (measure.ts); a
 * test fails when the committed tables and the measurement disagree. The layout tests
 * (whole-lines, plan-agrees, line-breaks) lay real cards out with takumi and fail when the plan
 * made from these tables and takumi's lines disagree. Armenian, Georgian, Ethiopic, Lao and the
 * Indic scripts without a table use per-script averages fitted to headlines by the same command
 * (script-widths.generated.ts); Devanagari, Thai, Myanmar and CJK use estimates in char-width.ts.
 */
export type FaceKey = 'sans-400' | 'sans-800' | 'serif-700';
