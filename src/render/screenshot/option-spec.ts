/**
 * The shape of a screenshot option's declaration (option-table.ts holds the declarations): its
 * value type with bounds, and how the API reference, the dashboard and the CLI present it.
 */

/** What kind of value an option takes; the parser, the schema and the client type follow from it. */
export type OptionType =
  /** On (`true`, `1`) or off (`false`, `0`, left out). */
  | { type: 'flag' }
  /** One CSS selector, at most SELECTOR_MAX_LENGTH characters. */
  | { type: 'selector'; example: string }
  /** Comma-separated CSS selectors, at most HIDE_SELECTORS_MAX; sorted, each once. */
  | { type: 'selectors'; example: string }
  /** A whole number from `min` to `max`; `none` is the value that asks for nothing (left out). */
  | {
      type: 'integer';
      min: number;
      max: number;
      unit: 'milliseconds' | 'seconds';
      none?: number;
      /** The default the docs name (the server's, when it is configurable). */
      shownDefault?: number;
      example: number;
    }
  /** The device scale factor: one of `values`; the viewport's own asks for nothing. */
  | { type: 'scale'; values: readonly number[]; example: number }
  /** The output format; `none` (PNG) asks for nothing. Read together with `quality`. */
  | { type: 'format'; values: readonly string[]; none: string; example: string }
  /** The lossy formats' quality, 1–100 (shared with the template routes). */
  | { type: 'quality'; example: number };

/** Where the dashboard playground shows an option, and what a person reads there. */
export interface OptionForm {
  /** The fieldset: what to capture, how the page is shown, the image made of it. */
  group: 'capture' | 'page' | 'image';
  label: string;
  hint?: string;
  placeholder?: string;
  /** The number input's step (integer options). */
  step?: number;
  /** The choices of a select (scale, format): value and label. */
  choices?: ReadonlyArray<readonly [string, string]>;
}

/** The option as a `npx cardshot shot` flag. */
export interface OptionCli {
  /** The flag without its dashes (kebab-case of the name unless given). */
  flag?: string;
  /** What the flag takes, in the help (`MS`, `CSS`); none for a switch. */
  arg?: string;
  /** Repeatable, each value split at commas (hideSelectors). */
  repeatable?: boolean;
  help: string;
  example: string;
}

export type OptionSpec = OptionType & {
  name: string;
  /** One line for the API reference and the client's types. */
  doc: string;
  /** A plan without its own option list leaves it out (it costs a server the most, or skips its cache). */
  gated: boolean;
  /** Changes only how the capture is cached, not the image: not in the cache key or the ETag. */
  cacheOnly?: boolean;
  form: OptionForm;
  cli: OptionCli;
};
