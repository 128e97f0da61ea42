/**
 * What a plan lets an account render, for a request already validated. The render command
 * checks it before spending any budget; the dashboard's playgrounds check the same before they
 * sign a URL, so a page never hands out a link the API would refuse with 403.
 */
import { assertScreenshotAllowed, assertTemplateAllowed, type Plan } from '../auth/plans.js';
import { optionsInUse } from './screenshot/options.js';
import type { ScreenshotRequest } from './screenshot/request.js';
import type { TemplateRequest } from './template/request.js';

/** 403 (`Template not available on your plan`) unless the plan includes the card's template. */
export function allowCard(plan: Plan, input: Pick<TemplateRequest, 'template'>): void {
  assertTemplateAllowed(plan, input.template);
}

/** 403 unless the plan takes screenshots at this viewport with every option the request turns on. */
export function allowScreenshot(plan: Plan, input: Pick<ScreenshotRequest, 'viewport' | 'options'>): void {
  assertScreenshotAllowed(plan, input.viewport.name, optionsInUse(input.options));
}
