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
