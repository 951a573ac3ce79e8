import { createHash } from 'node:crypto'
import type { Db } from '../platform/db/database.js'
import type { Executor } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, invalid, registerErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { readWhole, type BlobStore, type OpenedBlob } from './store/blob-store.js'
import { decodeStrict, parseDataUrl, sniffImageType } from './model/image-content.js'
import * as repo from './store/images.js'
import { writeRecorded, type RecordOutcome } from '../platform/idempotency/outcome.js'
import { limitReached, type WindowQuota } from '../platform/fairness/quotas.js'

export const IMAGE_ERRORS = registerErrors({
  IMAGE_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'IMG-4040', message: 'No such image.' },
  IMAGE_TOO_LARGE: {
    status: 413,
    errorCode: 'validation_error',
    additionalCode: 'IMG-4130',
    message: 'The image is larger than the limit.',
  },
})

const TEMP_LIFETIME_MS = 24 * 3600 * 1000
const PROBLEMS = {
  not_a_data_url: 'base64 must be a data URL: data:image/<png|jpeg|gif|webp>;base64,<data>',
  unsupported_type: 'Only image/png, image/jpeg, image/gif and image/webp are accepted.',
  bad_base64: 'The base64 data is malformed.',
  empty: 'The image is empty.',
} as const

export interface ImageRef {
  imageId: string
  imageLevel: 'ASSET' | 'ACTIVITY'
  imageType: string
  contentType: string
  tempURL: string
  activityId?: string
}

export interface ImagesServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  blobs: BlobStore
  maxBytes: number
  /** Per-subscription upload quotas (issue 14.4); absent: none. */
  quotas?: { uploads: WindowQuota; bytes: WindowQuota; tempHeld: number }
}

/** What an upload answers. */
export interface UploadedImage {
  imageId: string
  tempURL: string
  contentType: string
}

export const tempUrlOf = (imageId: string) => `temp/images/${imageId}`
const TEMP_URL = /^(?:.*\/)?temp\/images\/([a-z0-9_]{1,64})$/

export type ImagesService = ReturnType<typeof createImagesService>

export function createImagesService(deps: ImagesServiceDeps) {
  const { db, clock, ids, blobs } = deps

  /** Validates a data URL (declared type, strict base64, size, bytes matching the type). */
  function decodeDataUrl(dataUrl: string): { bytes: Buffer; contentType: string } {
    const parsed = parseDataUrl(dataUrl)
    if (!parsed.ok) throw invalid('base64', PROBLEMS[parsed.problem])
    // Decoding before the size check is bounded: the route's body limit keeps the text near maxBytes.
    const bytes = decodeStrict(parsed.base64)
    if (!bytes) throw invalid('base64', PROBLEMS.bad_base64)
    if (bytes.length > deps.maxBytes)
      throw new AppError(IMAGE_ERRORS.IMAGE_TOO_LARGE, {
        field: 'base64',
        description: `The image is larger than ${deps.maxBytes} bytes.`,
      })
    const actual = sniffImageType(bytes)
    if (!actual) throw invalid('base64', `The bytes are not a ${parsed.declared} image.`)
    if (actual !== parsed.declared)
      throw invalid('base64', `The bytes are ${actual} but ${parsed.declared} was declared.`)
    return { bytes, contentType: actual }
  }

  async function liveRow(subId: string, imageId: string): Promise<repo.ImageRow> {
    const row = await repo.findImage(db, subId, imageId)
    if (!row || (row.expires_at && row.expires_at <= clock.now())) throw new AppError(IMAGE_ERRORS.IMAGE_NOT_FOUND)
    return row
  }

  async function open(subId: string, imageId: string): Promise<OpenedBlob & { contentType: string; sha256: string }> {
    const row = await liveRow(subId, imageId)
    const blob = await blobs.open(row.storage_key)
    if (!blob) throw new AppError(IMAGE_ERRORS.IMAGE_NOT_FOUND, { detail: 'blob missing' })
    return { ...blob, contentType: row.content_type, sha256: row.sha256 }
  }

  return {
    decodeDataUrl,

    /** Releases the store's connections (the S3 client's sockets); the process is done with images. */
    close(): void {
      blobs.close?.()
    },

    /** What a HEAD or a conditional GET needs, from the row alone: the store is not read. */
    async describe(subId: string, imageId: string): Promise<{ contentType: string; sha256: string; size: number }> {
      const row = await liveRow(subId, imageId)
      return { contentType: row.content_type, sha256: row.sha256, size: row.byte_size }
    },

    /** Stores an uploaded image as temporary: it expires in 24 h unless a package takes it. */
    async upload(subId: string, dataUrl: string, outcome?: RecordOutcome<UploadedImage>): Promise<UploadedImage> {
      const { bytes, contentType: actual } = decodeDataUrl(dataUrl)
      const now = clock.now()
      const quotas = deps.quotas
      if (quotas) {
        if ((await repo.countHeldTemp(db, subId, now)) >= quotas.tempHeld) {
          throw limitReached(
            `${quotas.tempHeld} unattached images per subscription`,
            `This subscription holds ${quotas.tempHeld} uploaded images no package has taken, the most it may: attach them (images[].tempURL) or let them expire (24 h) first.`,
          )
        }
        await quotas.uploads.take(subId)
        await quotas.bytes.take(subId, bytes.length)
      }
      const imageId = ids('img_')
      const storageKey = `${subId}/${imageId}`
      // Bytes first, row second: a crash in between leaves an orphan file, never a row without bytes.
      await blobs.put(storageKey, bytes)
      try {
        return await writeRecorded(db, outcome, { imageId, tempURL: tempUrlOf(imageId), contentType: actual }, (ex) =>
          repo.insertImage(ex, {
            image_id: imageId,
            sub_id: subId,
            content_type: actual,
            byte_size: bytes.length,
            sha256: createHash('sha256').update(bytes).digest('hex'),
            storage_key: storageKey,
            created_at: now,
            expires_at: new Date(now.getTime() + TEMP_LIFETIME_MS),
          }),
        )
      } catch (e) {
        await blobs.delete(storageKey).catch(() => {})
        throw e
      }
    },

    /** An image of the subscription (temporary ones until they expire), opened for streaming. */
    open,

    /** The bytes of an image, whole (the label decoder reads them all anyway). */
    async read(subId: string, imageId: string): Promise<{ bytes: Buffer; contentType: string; sha256: string }> {
      const img = await open(subId, imageId)
      return { bytes: await readWhole(img), contentType: img.contentType, sha256: img.sha256 }
    },

    /**
     * Attaches uploaded images to a package inside the caller's transaction; each failure is a 400
     * naming `images[i].…`. `activityId` is the activity this change appends.
     */
    async attach(
      trx: Executor,
      subId: string,
      packageId: string,
      activityId: string,
      images: Array<{ imageLevel: 'ASSET' | 'ACTIVITY'; imageType: string; tempURL: string; contentType?: string }>,
    ): Promise<ImageRef[]> {
      const out: ImageRef[] = []
      for (const [i, img] of images.entries()) {
        const id = TEMP_URL.exec(img.tempURL)?.[1]
        if (!id)
          throw invalid(
            `images[${i}].tempURL`,
            'tempURL must be the temp/images/<imageId> returned by the image upload.',
          )
        const claimed = await repo.claimTempImage(trx, subId, id, clock.now(), {
          // Every image remembers the change that brought it, whatever its level: the history shows
          // which activity added a DAMAGE photo to the package.
          package_id: packageId,
          activity_id: activityId,
          image_level: img.imageLevel,
          image_type: img.imageType,
        })
        if (!claimed) throw invalid(`images[${i}].tempURL`, `No unattached, unexpired uploaded image ${id}.`)
        if (img.contentType && img.contentType.toLowerCase() !== claimed.content_type) {
          throw invalid(`images[${i}].contentType`, `The image is ${claimed.content_type}, not ${img.contentType}.`)
        }
        out.push({
          imageId: id,
          imageLevel: img.imageLevel,
          imageType: img.imageType,
          contentType: claimed.content_type,
          tempURL: tempUrlOf(id),
          activityId,
        })
      }
      return out
    },

    async listForPackage(subId: string, packageId: string): Promise<ImageRef[]> {
      const rows = await repo.listPackageImages(db, subId, packageId)
      return rows.map((r) => ({
        imageId: r.image_id,
        imageLevel: r.image_level ?? 'ASSET',
        imageType: r.image_type ?? 'OTHER',
        contentType: r.content_type,
        tempURL: tempUrlOf(r.image_id),
        ...(r.activity_id ? { activityId: r.activity_id } : {}),
      }))
    },

    /** Deletes temporary images past their 24 h; returns how many went. Safe to run from many processes. */
    async purgeExpired(batch = 500): Promise<number> {
      const gone = await repo.takeExpired(db, clock.now(), batch)
      await Promise.all(gone.map((g) => blobs.delete(g.storage_key).catch(() => {})))
      return gone.length
    },
  }
}
