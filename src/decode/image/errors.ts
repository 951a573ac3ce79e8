/**
 * The bytes are not a picture this module can read: corrupt, truncated, not an image at all, or
 * larger than it will decode. Callers map it to a client error; the message is safe to show.
 */
export class ImageDecodeError extends Error {
  override readonly name: string = 'ImageDecodeError'
}

/**
 * A well-formed image in a container the bundled decoder (zxing-cpp's stb_image) cannot open, such
 * as WebP or HEIC. Kept apart from corruption so a client can be told to send PNG, JPEG or GIF instead.
 */
export class UnsupportedImageFormatError extends ImageDecodeError {
  override readonly name: string = 'UnsupportedImageFormatError'

  constructor(readonly format: string) {
    super(`${format} images are not supported; send PNG, JPEG or GIF`)
  }
}

/** A picture whose header declares more pixels than are decoded (`maxPixels`); refused before any decoding. */
export class ImageTooLargeError extends ImageDecodeError {
  override readonly name: string = 'ImageTooLargeError'

  constructor(
    readonly width: number,
    readonly height: number,
    readonly maxPixels: number,
  ) {
    super(
      `Image too large: ${width}×${height} is ${megapixels(width * height)} megapixels; at most ${maxPixels} pixels (${megapixels(maxPixels)} megapixels) are decoded. Send a smaller photo or a crop of the label.`,
    )
  }
}

/** The decode did not finish within its time budget: its worker was stopped (and is replaced). */
export class ImageDecodeTimeoutError extends Error {
  override readonly name: string = 'ImageDecodeTimeoutError'

  constructor(readonly timeoutMs: number) {
    super(`The image was not decoded within ${timeoutMs / 1000} s`)
  }
}

/** Every decode thread is busy and the queue in front of them is full. */
export class ImageDecodeBusyError extends Error {
  override readonly name: string = 'ImageDecodeBusyError'

  constructor(readonly maxQueue: number) {
    super(`Every image decode thread is busy and ${maxQueue} decodes are waiting`)
  }
}

function megapixels(pixels: number): string {
  return (pixels / 1e6).toFixed(1)
}

/** How the OCR thread refuses a network fetch (ocr-thread.ts): the start of the error's message. */
export const OCR_NETWORK_REFUSED = 'mailroom OCR has no network access'
