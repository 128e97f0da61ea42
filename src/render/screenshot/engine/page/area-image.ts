/**
 * The last step of a capture with options: the area prepare.ts plans (the viewport, a full page,
 * an element), captured over CDP and made exactly its size in the requested image format.
 */
import type { LastStep } from './last-step.js';
import { planFacts, prepareShot, type ShotPlan } from './prepare.js';
import { encodeArea, screenshotArea } from './shoot.js';

export const areaImage: LastStep<ShotPlan> = {
  prepare: prepareShot,
  take: (lease, plan, state) => screenshotArea(lease, planned(plan).area, state.sessionScale),
  finish: (raw, plan, _lease, input) =>
    encodeArea(raw, planned(plan).size, input.options?.output, input.deadline),
  facts: planFacts,
};

/** The plan `prepare` made: always there for this step, which has a `prepare`. */
function planned(plan: ShotPlan | undefined): ShotPlan {
  if (!plan) throw new Error('an area capture without its plan');
  return plan;
}
