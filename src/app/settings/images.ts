import { availableParallelism } from 'node:os'
import type { BlobStoreConfig } from '../../images/index.js'
import { blobStoreOf } from './blob-store.js'
import { int, num, oneOf, optionalText, section } from './define.js'
import type { Env } from './index.js'

/** Image uploads and label photos: sizes, decode threads, and where the bytes live. */
export const imagesSettings = section({
  title: 'Images and label photos',
  keys: {
    IMAGE_MAX_BYTES: int({
      minimum: 1024,
      maximum: 104_857_600,
      default: 10 * 1_048_576,
      description: 'largest image upload, decoded (413 above it)',
    }),
    IMAGE_MAX_PIXELS: int({
      minimum: 10_000,
      maximum: 500_000_000,
      default: 50_000_000,
      description:
        'largest label photo decode-image reads, by the pixel count its header declares (400 naming the limit above it; nothing is downscaled)',
    }),
    IMAGE_DECODE_THREADS: int({
      minimum: 0,
      maximum: 64,
      default: 0,
      description: 'worker threads that decode label photos; 0: one less than the cores, at least 1, at most 4',
    }),
    IMAGE_DECODE_QUEUE: int({
      minimum: 0,
      maximum: 10_000,
      default: 16,
      description:
        'photos that may wait for a decode thread, all subscriptions together; beyond it 503 with Retry-After',
    }),
    IMAGE_DECODES_PER_SUBSCRIPTION: int({
      minimum: 1,
      maximum: 1000,
      default: 2,
      description: 'photos one subscription decodes at once; beyond it 429 with Retry-After',
    }),
    IMAGE_DECODE_TIMEOUT_MS: int({
      minimum: 100,
      maximum: 600_000,
      default: 20_000,
      description:
        'budget of one photo decode, waiting for a thread included; past it the thread is stopped and replaced (503)',
    }),
    RECIPIENT_AUTO_ASSIGN_THRESHOLD: num({
      minimum: 0.5,
      maximum: 1,
      default: 0.9,
      description:
        "a label photo's recipient is chosen without asking only when its match score (0–1: a whole name that agrees scores 0.95, a unit that agrees adds 0.05, one that disagrees takes 0.10) reaches this; below it the package goes to the scan-issues queue with suggestions (docs/label-photos.md)",
    }),
    RECIPIENT_AUTO_ASSIGN_MARGIN: num({
      minimum: 0,
      maximum: 0.5,
      default: 0.08,
      description:
        'and only when it leads the next candidate by at least this much; a first initial alone never chooses between two contacts of one surname',
    }),
    BLOB_STORE: oneOf(['auto', 'local', 'postgres', 's3'], {
      default: 'auto',
      description:
        'where image bytes live: postgres (the database, shared by every process), s3, or local (MAILROOM_DATA_DIR/images, one process); auto: s3 when BLOB_STORE_URL is set, else postgres on PostgreSQL and local on the embedded database. Images stored elsewhere before are still served, and moved by `mailroom images migrate`',
    }),
    BLOB_STORE_URL: optionalText({
      pattern: '^s3://',
      description:
        'an S3-compatible bucket: s3://bucket[/prefix][?endpoint=https://host:port&region=us-east-1&forcePathStyle=true] (an endpoint implies path-style)',
    }),
    BLOB_STORE_ACCESS_KEY_ID: optionalText({
      minLength: 1,
      description:
        "the bucket's access key id, set with the secret or neither; unset: the AWS SDK's own chain (instance role, ...)",
    }),
    BLOB_STORE_SECRET_ACCESS_KEY: optionalText({
      minLength: 1,
      secret: true,
      description: "the bucket's secret access key; never logged or echoed",
    }),
  },
})

export interface ImagesConfig {
  imageMaxBytes: number
  /** Label photos (POST …/decode-image): decoded in worker threads, bounded per subscription and in time. */
  imageDecode: { maxPixels: number; threads: number; maxQueue: number; perSubscription: number; timeoutMs: number }
  /** Where image bytes live; `auto` is decided by the database engine (see images/store/blob-stores.ts). */
  blobStore: BlobStoreConfig
  /** When a label photo's recipient is chosen without asking (contacts' decideRecipient). */
  recipientMatch: { threshold: number; margin: number }
}

export function imagesConfig(env: Env): ImagesConfig {
  return {
    imageMaxBytes: env.IMAGE_MAX_BYTES,
    imageDecode: Object.freeze({
      maxPixels: env.IMAGE_MAX_PIXELS,
      threads: env.IMAGE_DECODE_THREADS || Math.min(4, Math.max(1, availableParallelism() - 1)),
      maxQueue: env.IMAGE_DECODE_QUEUE,
      perSubscription: env.IMAGE_DECODES_PER_SUBSCRIPTION,
      timeoutMs: env.IMAGE_DECODE_TIMEOUT_MS,
    }),
    blobStore: blobStoreOf(env).store!,
    recipientMatch: Object.freeze({
      threshold: env.RECIPIENT_AUTO_ASSIGN_THRESHOLD,
      margin: env.RECIPIENT_AUTO_ASSIGN_MARGIN,
    }),
  }
}

export const imagesProblems = (env: Env): string[] => blobStoreOf(env).problems
