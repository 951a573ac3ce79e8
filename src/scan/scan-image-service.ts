import {
  ImageDecodeBusyError,
  ImageDecodeError,
  ImageDecodePool,
  ImageDecodeTimeoutError,
  ImageTooLargeError,
  UnsupportedImageFormatError,
  type FoundBarcode,
  type ImageDecodePoolOptions,
  type LabelRead,
} from '../decode/index.js'
import type { RecipientMatch, RecipientQuery } from '../contacts/index.js'
import { AppError, invalid, registerErrors } from '../platform/kit/errors.js'
import { HeavyShare } from '../platform/fairness/heavy-share.js'
import type { Presence } from '../platform/fairness/presence.js'
import { TenantGate } from '../platform/fairness/tenant-gate.js'
import type { DecodeResponse } from './api/schemas.js'
import type { ScanService } from './service.js'
import { answerLabel, type LabelAnswer } from './label-read.js'

export const SCAN_IMAGE_ERRORS = registerErrors({
  IMAGE_DECODE_BUSY: {
    status: 503,
    errorCode: 'internal_error',
    additionalCode: 'DEC-5031',
    message: 'Every image decode thread is busy; retry later.',
  },
  IMAGE_DECODE_TIMEOUT: {
    status: 503,
    errorCode: 'internal_error',
    additionalCode: 'DEC-5032',
    message: 'The image was not decoded within its time budget.',
  },
})

export interface ImageSource {
  decodeDataUrl(dataUrl: string): { bytes: Buffer; contentType: string }
  read(subId: string, imageId: string): Promise<{ bytes: Buffer }>
}

/** What reads the barcodes of a picture: the worker pool in the service, anything in a test. */
export interface BarcodeReader {
  read(bytes: Uint8Array): Promise<FoundBarcode[]>
  /** Barcodes and printed text in one pass (the pool's; absent in a test reader: no text). */
  readLabel?(bytes: Uint8Array): Promise<LabelRead>
  close(): Promise<void>
}

export interface FoundAndDecoded extends Omit<FoundBarcode, 'aimId'> {
  aimId?: string
  decoded?: DecodeResponse
  error?: string
}

export interface ScanImageDeps {
  scan: ScanService
  images: ImageSource
  /** Pool settings (config.imageDecode): threads, queue, pixel cap, time budget; and decodes per subscription. */
  decode: ImageDecodePoolOptions & { perSubscription: number }
  /** One subscription's share of the decode threads over time while others are served (HEAVY_SHARE, HEAVY_BURST_MS). */
  share: { share: number; burstMs: number }
  presence: Presence
  /** Replaces the worker pool (tests). */
  reader?: BarcodeReader
  /** The directory match of a label's printed recipient (contacts' matcher). */
  matchRecipient?: (subId: string, q: RecipientQuery) => Promise<RecipientMatch>
}

/**
 * Every barcode of a label photo, each decoded as if scanned: the symbology identifier (e.g. ]C1
 * for GS1-128) is put back in front of the text, since zxing reports GS1 apart from the data.
 *
 * The pixels are read in worker threads (ImageDecodePool), never on the event loop, and each
 * subscription decodes at most `perSubscription` photos at once (TenantGate: 429 beyond), so one
 * tenant's photos neither stall other requests nor fill the threads every tenant shares. Photos
 * decoded back to back are also held to the subscription's share of the threads over time while
 * other subscriptions are served (HeavyShare, as the heavy slots are): a thread is a core.
 */
export function createScanImageService(deps: ScanImageDeps) {
  const reader: BarcodeReader = deps.reader ?? new ImageDecodePool(deps.decode)
  const gate = new TenantGate('image decodes', deps.decode.perSubscription)
  // Held from the read's start to its end, queueing for a thread included: a busy pool charges a little more.
  const share = new HeavyShare({
    ...deps.share,
    slots: deps.decode.threads,
    maxWaitMs: deps.decode.timeoutMs,
    what: 'label-photo decodes',
    presence: deps.presence,
  })

  async function sharedRead<T>(subId: string, read: () => Promise<T>): Promise<T> {
    await share.turn(subId)
    const end = share.begin(subId)
    try {
      return await read()
    } finally {
      end()
    }
  }

  async function readPicture(subId: string, bytes: Uint8Array, field: string, withText: boolean): Promise<LabelRead> {
    const read = async (): Promise<LabelRead> => {
      if (!withText) return { barcodes: await reader.read(bytes) }
      if (!reader.readLabel) return { barcodes: await reader.read(bytes), textError: 'No text reader is configured.' }
      return reader.readLabel(bytes)
    }
    try {
      return await gate.run(subId, () => sharedRead(subId, read))
    } catch (e) {
      if (e instanceof ImageTooLargeError)
        throw new AppError('VALIDATION_FAILED', {
          field,
          description: e.message,
          additionalInfo: `limit: ${e.maxPixels} pixels`,
        })
      if (e instanceof UnsupportedImageFormatError) throw invalid(field, e.message)
      if (e instanceof ImageDecodeError) throw invalid(field, `The image cannot be read: ${e.message}`)
      if (e instanceof ImageDecodeBusyError)
        throw new AppError(SCAN_IMAGE_ERRORS.IMAGE_DECODE_BUSY, { headers: { 'retry-after': '1' } })
      if (e instanceof ImageDecodeTimeoutError) {
        throw new AppError(SCAN_IMAGE_ERRORS.IMAGE_DECODE_TIMEOUT, {
          description: `${e.message}: it was stopped. Send a smaller photo or a crop of the label, or retry later.`,
          additionalInfo: `budget: ${e.timeoutMs} ms`,
          headers: { 'retry-after': '5' },
        })
      }
      throw e
    }
  }

  return {
    /**
     * Every barcode of the photo, decoded; with `read: 'text'` also its printed text, the SHIP TO
     * block found in it and the directory's suggestions for the recipient (label-read.ts).
     */
    async decodeImage(
      subId: string,
      input: { base64?: string; imageId?: string },
      opts: { read?: 'text'; siteId?: string; logTextError?: (detail: string) => void } = {},
    ): Promise<{ barcodes: FoundAndDecoded[]; label?: LabelAnswer }> {
      if (!input.base64 === !input.imageId) throw invalid('base64', 'Send either base64 (a data URL) or imageId.')
      const bytes = input.base64
        ? deps.images.decodeDataUrl(input.base64).bytes
        : (await deps.images.read(subId, input.imageId!)).bytes
      const withText = opts.read === 'text'
      const picture = await readPicture(subId, bytes, input.base64 ? 'base64' : 'imageId', withText)
      const found = picture.barcodes
      const barcodes: FoundAndDecoded[] = []
      for (const b of found) {
        const raw = b.isGS1 && b.aimId ? `${b.aimId}${b.text}` : b.text
        try {
          barcodes.push({ ...b, decoded: await deps.scan.decode(subId, raw) })
        } catch (e) {
          barcodes.push({ ...b, error: e instanceof Error ? e.message : 'unreadable' })
        }
      }
      if (!withText) return { barcodes }
      return {
        barcodes,
        label: await answerLabel(subId, picture, barcodes, opts.siteId, deps.matchRecipient, opts.logTextError),
      }
    },

    /** Stops the decode threads (the app's onClose). */
    close: () => reader.close(),
  }
}
