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
export { type Font, FontsApi } from './fonts.js';
export type {
  Downloaded,
  DownloadOptions,
  DownloadTarget,
  ItemPage,
  ItemResult,
  ItemStatus,
  Job,
  JobInput,
  JobItem,
  JobItemInput,
  JobPage,
  JobStatus,
  PageOptions,
  SubmitOptions,
  SubmittedJob,
  WaitOptions,
} from './job-types.js';
export { JobsApi } from './jobs.js';
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
export {
  type Site,
  type SiteFallback,
  type SiteFields,
  type SiteInput,
  type SitePurge,
  type SiteRender,
  SitesApi,
  type SiteTheme,
  type SiteUpdate,
  siteCardUrl,
  siteTag,
  type WarmJob,
  type WarmOptions,
} from './sites.js';
export {
  StorageApi,
  type StorageTarget,
  type StorageTargetInput,
  type StorageTestResult,
  type StoredObject,
} from './storage.js';
export type { CardshotTemplates } from './templates.generated.js';
export type {
  UnfurlImage,
  UnfurlPlatformId,
  UnfurlPlatformView,
  UnfurlProblem,
  UnfurlReport,
  UnfurlSeverity,
} from './unfurl.js';
export {
  type DeliveryPage,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookEndpoint,
  type WebhookEndpointWithSecret,
  type WebhookEventType,
  WebhooksApi,
} from './webhook-endpoints.js';
export { verifyWebhook, type WebhookEvent, WebhookVerificationError } from './webhooks.js';
