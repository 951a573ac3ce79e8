import { ImageDecodeError, UnsupportedImageFormatError } from './errors.js'

export type ImageFormat = 'png' | 'jpeg' | 'gif'

export interface ImageHeader {
  readonly format: ImageFormat
  readonly width: number
  readonly height: number
}

/**
 * Reads the container and the pixel size from the first bytes, before anything is decoded.
 *
 * Two reasons to look first: stb_image also accepts headerless formats (TGA), so random bytes can
 * "decode" into a picture and come back as "no barcode" instead of an error; and a small file can
 * declare a huge canvas (a 900 MB PNG deflates to under 1 MB), which would hold the event loop for
 * seconds inside the synchronous wasm call.
 */
export function readImageHeader(bytes: Uint8Array): ImageHeader {
  if (startsWith(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    // IHDR is always the first chunk (PNG spec 5.2): width and height are at bytes 16 and 20.
    return sized('png', readU32BE(bytes, 16), readU32BE(bytes, 20))
  }
  if (startsWith(bytes, 0, [0xff, 0xd8, 0xff])) return jpegHeader(bytes)
  if (startsWithText(bytes, 0, 'GIF87a') || startsWithText(bytes, 0, 'GIF89a')) {
    return sized('gif', readU16LE(bytes, 6), readU16LE(bytes, 8))
  }
  const unsupported = unsupportedContainer(bytes)
  if (unsupported) throw new UnsupportedImageFormatError(unsupported)
  throw new ImageDecodeError('Not a PNG, JPEG or GIF image')
}

/** Containers phones and browsers produce that stb_image cannot open: named, so the error can say so. */
function unsupportedContainer(bytes: Uint8Array): string | undefined {
  if (startsWithText(bytes, 0, 'RIFF') && startsWithText(bytes, 8, 'WEBP')) return 'WebP'
  if (startsWithText(bytes, 4, 'ftyp')) {
    // ISO-BMFF brand (ISO/IEC 14496-12 4.3): HEIC from iPhones, AVIF from newer browsers.
    const brand = String.fromCharCode(...bytes.subarray(8, 12))
    if (brand.startsWith('avi')) return 'AVIF'
    if (['heic', 'heix', 'hevc', 'heim', 'heis', 'mif1', 'msf1'].includes(brand)) return 'HEIC'
  }
  if (startsWith(bytes, 0, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, 0, [0x4d, 0x4d, 0x00, 0x2a])) return 'TIFF'
  return undefined
}

/**
 * Walks the JPEG marker segments (ITU T.81 B.1.1) to the first start-of-frame, which holds the size.
 * SOF markers are C0–CF except C4 (DHT), C8 (JPG) and CC (DAC).
 */
function jpegHeader(bytes: Uint8Array): ImageHeader {
  let at = 2
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) break
    const marker = bytes[at + 1]!
    if (marker === 0xff) {
      at++ // fill byte before a marker (B.1.1.2)
      continue
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isFrame) return sized('jpeg', readU16BE(bytes, at + 7), readU16BE(bytes, at + 5))
    at += 2 + readU16BE(bytes, at + 2)
  }
  throw new ImageDecodeError('Corrupt JPEG: no frame header')
}

function sized(format: ImageFormat, width: number, height: number): ImageHeader {
  if (width === 0 || height === 0) throw new ImageDecodeError(`Corrupt ${format.toUpperCase()}: empty frame`)
  return { format, width, height }
}

function startsWith(bytes: Uint8Array, offset: number, prefix: readonly number[]): boolean {
  return prefix.every((b, i) => bytes[offset + i] === b)
}

function startsWithText(bytes: Uint8Array, offset: number, text: string): boolean {
  return startsWith(
    bytes,
    offset,
    [...text].map((c) => c.charCodeAt(0)),
  )
}

function readU16LE(bytes: Uint8Array, at: number): number {
  return (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8)
}

function readU16BE(bytes: Uint8Array, at: number): number {
  return ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0)
}

function readU32BE(bytes: Uint8Array, at: number): number {
  return readU16BE(bytes, at) * 0x10000 + readU16BE(bytes, at + 2)
}
