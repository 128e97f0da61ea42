/**
 * The screenshot options as OpenAPI query parameters, derived from the option table
 * (render/screenshot/option-table.ts): documentation only, the route parses by hand
 * (render/screenshot/options.ts) with the same bounds.
 */
import { type TSchema, Type } from 'typebox';
import { SELECTOR_MAX_LENGTH } from '../../render/screenshot/engine/page/selectors.js';
import { type OptionSpec, SHOT_OPTIONS } from '../../render/screenshot/option-table.js';

/** One option's schema, by its type. */
function schemaOf(spec: OptionSpec): TSchema {
  const description = spec.doc;
  switch (spec.type) {
    case 'flag':
      return Type.String({ enum: ['true', 'false', '1', '0'], default: 'false', description });
    case 'selector':
      return Type.String({ maxLength: SELECTOR_MAX_LENGTH, description, examples: [spec.example] });
    case 'selectors':
      return Type.String({ description, examples: [spec.example] });
    case 'integer':
      return Type.Integer({
        minimum: spec.min,
        maximum: spec.max,
        ...(spec.shownDefault !== undefined ? { default: spec.shownDefault } : {}),
        description,
        examples: [spec.example],
      });
    case 'scale':
      return Type.Integer({ enum: [...spec.values], description, examples: [spec.example] });
    case 'format':
      return Type.String({
        enum: [...spec.values],
        default: spec.none,
        description,
        examples: [spec.example],
      });
    case 'quality':
      return Type.Integer({ minimum: 1, maximum: 100, description, examples: [spec.example] });
  }
}

/** The options as optional query parameters, in table order. */
export const SHOT_OPTION_PROPERTIES: Record<string, TSchema> = Object.fromEntries(
  SHOT_OPTIONS.map((spec) => [spec.name, Type.Optional(schemaOf(spec))]),
);
