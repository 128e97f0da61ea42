/**
 * The shape of a screenshot option's declaration (option-table.ts holds the declarations): its
 * value type with bounds, and how the API reference, the dashboard and the CLI present it.
 */

/** What kind of value an option takes; the parser, the schema and the client type follow from it. */
export type OptionType =
  /**
   * On (`true`, `1`) or off (`false`, `0`, left out); with `on: true` it is on unless turned off
   * (`printBackground`), and only `false` asks for something.
   */
  | { type: 'flag'; on?: true }
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
  /**
   * The device scale factor: one of `values`; the viewport's own asks for nothing. With
   * format=pdf it is the print scale instead, a number from `pdf.min` to `pdf.max` (1 asks for nothing).
   */
  | { type: 'scale'; values: readonly number[]; pdf: { min: number; max: number }; example: number }
  /**
   * One of `values`; `none` asks for nothing (left out). An object names the value that asks for
   * nothing by format (media: print for a PDF, screen for an image).
   */
  | {
      type: 'choice';
      values: readonly string[];
      none?: string | { pdf: string; image: string };
      example: string;
    }
  /**
   * Free text of at most `maxLength` characters, checked and normalised by `read` (which throws
   * the 400 naming the option): margins, page ranges, a locale, a time zone, a stylesheet.
   */
  | {
      type: 'text';
      maxLength: number;
      read: (value: string, name: string) => string;
      example: string;
    }
  /** An area of the page in CSS pixels: `x,y,width,height` (an object in a JSON body). */
  | { type: 'clip'; example: string }
  /**
   * What signs a capture in (credentials.ts checks it): only in a POST body with a key, never in
   * a URL, which is logged by proxies and, signed, public.
   */
  | { type: 'credential'; shape: 'headers' | 'cookies' | 'basicAuth' | 'userAgent'; example: string }
  /** The output format; `none` (PNG) asks for nothing. Read together with `quality`. */
  | { type: 'format'; values: readonly string[]; none: string; example: string }
  /** The lossy formats' quality, 1–100 (shared with the template routes). */
  | { type: 'quality'; example: number };

/** Where the dashboard playground shows an option, and what a person reads there. */
export interface OptionForm {
  /** The fieldset: what to capture, how the page is shown, the image made of it. */
  group: 'capture' | 'page' | 'image' | 'pdf' | 'credentials';
  label: string;
  hint?: string;
  placeholder?: string;
  /** The number input's step (integer options). */
  step?: number;
  /** A text area rather than a one-line input (css). */
  multiline?: boolean;
  /** The choices of a select (scale, format, choice options): value and label. */
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
  /** Applies to one kind of answer only (a PDF's paper, an image's full page): 400 with the other. */
  only?: 'pdf' | 'image';
  form: OptionForm;
  cli: OptionCli;
};
