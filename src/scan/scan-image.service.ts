import { ImageDecodeError, readBarcodesFromImage, UnsupportedImageFormatError, type FoundBarcode } from '../decode/image/index.js'
import { invalid } from '../shared/errors.js'
import type { DecodeResponse } from './scan.schemas.js'
import type { ScanService } from './scan.service.js'

export interface ImageSource {
  decodeDataUrl(dataUrl: string): { bytes: Buffer; contentType: string }
  read(subId: string, imageId: string): Promise<{ bytes: Buffer }>
}

export interface FoundAndDecoded extends Omit<FoundBarcode, 'aimId'> {
  aimId?: string
  decoded?: DecodeResponse
  error?: string
}

/**
 * Every barcode of a label photo, each decoded as if scanned: the symbology identifier (e.g. ]C1
 * for GS1-128) is put back in front of the text, since zxing reports GS1 apart from the data.
 */
export function createScanImageService(deps: { scan: ScanService; images: ImageSource }) {
  return {
    async decodeImage(subId: string, input: { base64?: string; imageId?: string }): Promise<{ barcodes: FoundAndDecoded[] }> {
      if (!input.base64 === !input.imageId) throw invalid('base64', 'Send either base64 (a data URL) or imageId.')
      const bytes = input.base64 ? deps.images.decodeDataUrl(input.base64).bytes : (await deps.images.read(subId, input.imageId!)).bytes
      let found: FoundBarcode[]
      try {
        found = await readBarcodesFromImage(bytes)
      } catch (e) {
        if (e instanceof UnsupportedImageFormatError) throw invalid(input.base64 ? 'base64' : 'imageId', e.message)
        if (e instanceof ImageDecodeError) throw invalid(input.base64 ? 'base64' : 'imageId', `The image cannot be read: ${e.message}`)
        throw e
      }
      const barcodes: FoundAndDecoded[] = []
      for (const b of found) {
        const raw = b.isGS1 && b.aimId ? `${b.aimId}${b.text}` : b.text
        try {
          barcodes.push({ ...b, decoded: await deps.scan.decode(subId, raw) })
        } catch (e) {
          barcodes.push({ ...b, error: e instanceof Error ? e.message : 'unreadable' })
        }
      }
      return { barcodes }
    },
  }
}
