import { AppError, registerErrors } from '../kit/errors.js'
import type { WindowCounter } from './window-counter.js'

/**
 * Quotas of a subscription (issue 14.4). A rate quota (uploads per hour, test sends per minute) is
 * refused with 429 and Retry-After until its window ends; a held-count limit (webhook
 * configurations, unattached images) with 400 until the subscription frees one. Both name the
 * limit in `additionalInfo` ("limit: 50 webhook configurations per subscription").
 */
export const QUOTA_ERRORS = registerErrors({
  QUOTA_EXCEEDED: {
    status: 429,
    errorCode: 'validation_error',
    additionalCode: 'QTA-4290',
    message: 'A quota of this subscription is used up for now; retry later.',
  },
  LIMIT_REACHED: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'QTA-4000',
    message: 'A limit of this subscription is reached.',
  },
})

export function limitReached(limit: string, description: string): AppError {
  return new AppError(QUOTA_ERRORS.LIMIT_REACHED, { description, additionalInfo: `limit: ${limit}` })
}

/** At most `max` units (requests, bytes) per subscription per window, counted in the shared window counters. */
export class WindowQuota {
  constructor(
    private readonly counter: WindowCounter,
    /** Key prefix and the unit's name in refusals: 'image uploads', 'bytes of image uploads'. */
    readonly what: string,
    readonly max: number,
    readonly windowSeconds: number,
  ) {}

  /** Counts `amount` units, or throws QUOTA_EXCEEDED (429) without counting them when they would pass the quota. */
  async take(subId: string, amount = 1): Promise<void> {
    const key = `quota:${this.what}:${subId}`
    const { hits, endsAt } = await this.counter.hit(key, this.windowSeconds * 1000, amount)
    if (hits <= this.max) return
    // Refused work does not use the quota up: given back to the window it was counted in, not to a
    // window that started since (which would then begin below zero and allow more than max).
    await this.counter.refund(key, endsAt, amount)
    const retryAfter = Math.max(1, Math.ceil((endsAt - this.counter.now()) / 1000))
    throw new AppError(QUOTA_ERRORS.QUOTA_EXCEEDED, {
      description: `At most ${this.max} ${this.what} per ${per(this.windowSeconds)} for this subscription; retry after ${retryAfter} s.`,
      additionalInfo: `limit: ${this.max} ${this.what} per ${per(this.windowSeconds)}`,
      headers: { 'retry-after': String(retryAfter) },
    })
  }
}

const per = (seconds: number) => (seconds === 3600 ? 'hour' : seconds === 60 ? 'minute' : `${seconds} s`)
