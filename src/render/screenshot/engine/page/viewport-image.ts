/** The plain capture's last step: the visible viewport over CDP, encoded as PNG (shoot.ts). */
import type { LastStep } from './last-step.js';
import { encode, screenshotViewport } from './shoot.js';

export const viewportImage: LastStep = {
  take: (lease) => screenshotViewport(lease),
  finish: (raw, _plan, lease) => encode(raw, lease),
  facts: () => ({}),
};
