/**
 * The names of the screenshot options (issue 17), apart from their parsing so plans can name
 * them without the rest of the screenshot engine. Derived from the option table.
 */
import { type OptionName, SHOT_OPTIONS } from './option-table.js';

export type { OptionName } from './option-table.js';

export const OPTION_NAMES: readonly OptionName[] = SHOT_OPTIONS.map((o) => o.name);

/**
 * What a plan without its own list allows: every option except those that cost a server the
 * most (a whole page, blocking lists) or bypass its cache (fresh): the table's gated ones.
 */
export const FREE_OPTIONS: readonly OptionName[] = SHOT_OPTIONS.filter((o) => !o.gated).map((o) => o.name);
