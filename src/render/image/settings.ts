import { type ConfigOf, MiB, type SettingsGroup } from '../../config/setting.js';

/** Fetching imageUrl artwork: time, size, concurrency and reuse. */
export const imageSettings = {
  imageTimeoutMs: {
    kind: 'int',
    default: 5000,
    min: 100,
    max: 60_000,
    description: 'Total time allowed to fetch an imageUrl (DNS, connect, redirects, body).',
  },
  imageMaxBytes: {
    kind: 'int',
    // Was 10 MB: 150 slow cards could then hold 1.4 GB of bodies (issue 20).
    default: 5 * 1000 * 1000,
    min: 1024,
    max: 100 * 1000 * 1000,
    description: 'Largest imageUrl body; enforced while streaming.',
  },
  imageFetchConcurrency: {
    kind: 'int',
    default: 32,
    min: 1,
    max: 10_000,
    description:
      'imageUrl downloads in flight on one node (a request joining a download of the same URL, or served from the short image cache, does not count); past it a card that needs a new one gets 503 with Retry-After.',
  },
  imageFetchConcurrencyPerAccount: {
    kind: 'int',
    default: 4,
    min: 1,
    max: 10_000,
    description:
      'imageUrl downloads in flight started by one account on one node; past it that account gets 429 with Retry-After.',
  },
  imageFetchMemoryBytes: {
    kind: 'int',
    default: 128 * MiB,
    min: 1 * MiB,
    max: 64 * 1024 * MiB,
    description:
      'Bytes of imageUrl bodies one node holds at once, being downloaded or waiting for their render; a download that would pass it stops and its card gets 503 with Retry-After.',
  },
  imageMaxPixels: {
    kind: 'int',
    default: 25_000_000,
    min: 10_000,
    max: 268_402_689,
    description: 'Largest decoded imageUrl size in pixels (guards against decompression bombs).',
  },
  imageCacheTtlSeconds: {
    kind: 'int',
    default: 600,
    min: 0,
    max: 86_400,
    description: 'How long fetched imageUrl bytes are reused before they are fetched again.',
  },
  imageDecodeWorkers: {
    kind: 'int',
    default: 2,
    min: 1,
    max: 64,
    description:
      'Child processes that decode imageUrl artwork and logos (one image each at a time, one per account); started on first use and kept warm.',
  },
  imageDecodeCpuMs: {
    kind: 'int',
    default: 1000,
    min: 100,
    max: 60_000,
    description:
      'CPU time one image may take to decode and resize; past it the decode child is killed and the image refused with 422.',
  },
  imageDecodeMemoryBytes: {
    kind: 'int',
    default: 64 * MiB,
    min: 16 * MiB,
    max: 4096 * MiB,
    description:
      'Memory one image may add to its decode child; past it the child is killed and the image refused with 422.',
  },
  imagePreparedCacheBytes: {
    kind: 'int',
    default: 64 * MiB,
    min: 0,
    max: 4096 * MiB,
    description:
      'Decoded and resized artwork kept by content hash and size, so one image is not decoded again per card (an account fills at most a quarter); 0 turns it off.',
  },
} as const satisfies SettingsGroup;

/** What the artwork fetcher reads. */
export type ImageConfig = ConfigOf<typeof imageSettings>;
