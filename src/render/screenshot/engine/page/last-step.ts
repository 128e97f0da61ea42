/**
 * The capture's last step, the one part that differs by what the answer is: the page is loaded,
 * settled and prepared the same way (capture.ts), then this step takes from it what the answer
 * needs and makes the answer's bytes. A PDF is added as one more step beside these two.
 */
import type { ShotOptions } from '../../options.js';
import type { Lease } from '../browser/lease.js';
import { areaImage } from './area-image.js';
import type { CaptureInput } from './capture.js';
import type { OptionState } from './prepare.js';
import { viewportImage } from './viewport-image.js';

/** What a step tells the answer's headers about what it took. */
export interface StepFacts {
  /** The page's height in CSS pixels (X-Page-Height). */
  pageHeight?: number;
  /** A bound cut the capture short (X-Full-Page-Truncated). */
  truncated?: true;
}

/** One way to finish a capture. `P` is what `prepare` decides and the other steps read. */
export interface LastStep<P = unknown> {
  /**
   * In the ready page (its waitUntil event and web fonts): what the options ask for before the
   * capture (waits, hiding, scrolling), and what to take. Left out when there is nothing to do:
   * the plain capture makes no extra round trip. Runs again when a new document replaces the page.
   */
  prepare?(lease: Lease, input: CaptureInput, state: OptionState): Promise<P>;
  /** Takes the raw result from the page (may give way to a document that replaces it). */
  take(lease: Lease, plan: P | undefined, state: OptionState): Promise<Buffer>;
  /** The answer's bytes from the raw result, off the page; stops at `input.deadline`. */
  finish(raw: Buffer, plan: P | undefined, lease: Lease, input: CaptureInput): Promise<Buffer>;
  /** What the answer's headers say about the result. */
  facts(plan: P | undefined): StepFacts;
}

/** The steps by name: a capture job names its step, so a queued job can carry it as data. */
export const LAST_STEPS: Readonly<Record<LastStepName, LastStep>> = {
  'viewport-image': viewportImage,
  'area-image': areaImage,
};

/**
 * `viewport-image`: the visible viewport as PNG, the plain capture without options.
 * `area-image`: an area (the viewport, a full page, an element) in any image format, with options.
 */
export type LastStepName = 'viewport-image' | 'area-image';

/** The step a request's options ask for: without options, the plain viewport capture. */
export function lastStepFor(options: ShotOptions | undefined): LastStepName {
  return options ? 'area-image' : 'viewport-image';
}
