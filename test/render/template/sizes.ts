import { SIZE_NAMES, SIZES } from '../../../src/render/template/sizes.js';
import type { CardSize } from '../../../src/render/template/types.js';

/** Every card size, og first: the fit guarantees hold at each. */
export const ALL_SIZES: readonly CardSize[] = SIZE_NAMES.map((name) => SIZES[name]);

/** A test name's size suffix: nothing at og (the names the tests always had), ` @ story` otherwise. */
export const at = (size: CardSize) => (size.name === 'og' ? '' : ` @ ${size.name}`);

/**
 * The options of a heavy per-size test: at og in test:unit, every size in `npm test` (`slow`
 * elsewhere: the long-text matrix draws ~200 cards, most of test:unit's render time).
 */
export const heavyAt = (size: CardSize) => ({ tags: size.name === 'og' ? [] : ['slow'] });
