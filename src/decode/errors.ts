export type DecodeErrorCode = 'EMPTY_SCAN' | 'UNREADABLE_SCAN'

/**
 * The scanned text cannot be decoded at all (empty, only control characters, or too long to be a
 * label symbol). A scan that is readable but matches no known format is not an error: it decodes to
 * a result with no candidates. The message is written for the clerk and is safe to send.
 */
export class DecodeError extends Error {
  override readonly name: string = 'DecodeError'

  constructor(
    readonly code: DecodeErrorCode,
    message: string,
  ) {
    super(message)
  }
}
