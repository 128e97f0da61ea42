import type {
  Artwork,
  ArtworkSize,
  BuildContext,
  BuiltCard,
  CardSize,
  FieldSpec,
  SizeName,
} from '../types.js';
import type { Child } from './jsx-runtime.js';

/** A declared field's value type: numbers for `number`, the options for `choice`, else string. */
export type ValueOf<S> = S extends { type: 'number' }
  ? number
  : S extends { type: 'choice'; options: readonly (infer O)[] }
    ? O
    : string;

/** Whether a field always has a value in `render`: required, or with a default. */
type AlwaysThere<S> = S extends { required: true }
  ? true
  : S extends { default: string | number }
    ? true
    : false;

/** What `render` is given, typed from the declaration: always-present fields plain, the rest optional. */
export type FieldsOf<F> = {
  [K in keyof F as AlwaysThere<F[K]> extends true ? K : never]: ValueOf<F[K]>;
} & {
  [K in keyof F as AlwaysThere<F[K]> extends true ? never : K]?: ValueOf<F[K]>;
} & {
  /** Present only with `brand: true` and a `brand` in the request. */
  brand?: string;
  /** Present only with `artwork` declared and an `imageUrl` in the request; already resized. */
  artwork?: Artwork;
};

/** `build`'s context with the size always there (og when the request names none). */
export type RenderContext = BuildContext & { size: CardSize };

/** A JSX tree, a takumi node, or a node with its images (as the built-ins' `build` returns). */
export type RenderResult = Child | BuiltCard;

/** What a template file default-exports through `defineTemplate`. */
export interface TemplateDeclaration<F extends Record<string, FieldSpec> = Record<string, FieldSpec>> {
  /** One line, for docs, the dashboard and errors. */
  description: string;
  /** The request's fields, in display order. */
  fields: F;
  /** Sizes the layout supports; the first is the default (default: `['og']`). */
  sizes?: readonly SizeName[];
  /** Whether the template draws the request's `brand` (default false). */
  brand?: boolean;
  /** Whether and at what size it draws `imageUrl` (default false: the URL is ignored). */
  artwork?: false | ArtworkSize | ((size: CardSize) => ArtworkSize);
  /** Whether it draws the account's brand theme (default false). */
  theme?: boolean;
  /** Draws the card. Synchronous and pure: the same fields and context give the same tree. */
  render(fields: FieldsOf<F>, ctx: RenderContext): RenderResult;
}

/** Marks a declaration made by `defineTemplate` (a plain object is refused with a hint). */
export const DECLARATION = Symbol.for('cardshot.template-declaration');

export type DefinedTemplate<F extends Record<string, FieldSpec>> = TemplateDeclaration<F> & {
  readonly [DECLARATION]: true;
};

/**
 * Declares a template: its fields, sizes and inputs, and how it draws. The loader checks the
 * declaration when the file loads (a mistake stops the start, naming the file and line).
 */
export function defineTemplate<const F extends Record<string, FieldSpec>>(
  declaration: TemplateDeclaration<F>,
): DefinedTemplate<F> {
  return Object.assign(Object.create(null), declaration, { [DECLARATION]: true as const });
}
