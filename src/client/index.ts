/**
 * The Cardshot client: `import { Cardshot, CardshotError } from 'cardshot/client'`.
 * Zero runtime dependencies; needs only fetch and WebCrypto.
 */
export {
  type CallOptions,
  Cardshot,
  type CardshotOptions,
  type Expiry,
  type ImageResult,
  type ScreenshotInput,
  type ScreenshotResult,
  type TemplateFieldsOf,
  type TemplateInput,
  type TemplateName,
  type Viewport,
  type WaitUntil,
} from './cardshot.js';
export { CardshotError, type CardshotErrorCode } from './errors.js';
export {
  FILE_EXTENSION,
  type FormatChoice,
  type ImageContentType,
  type ImageFormat,
  SCREENSHOT_PARAMS,
  type Scale,
  type ScreenshotOptions,
  screenshotParams,
} from './options.js';
export { canonicalRequest, encodeRfc3986 } from './signing.js';
export type { CardshotTemplates } from './templates.generated.js';
export { verifyWebhook, type WebhookEvent, WebhookVerificationError } from './webhooks.js';
