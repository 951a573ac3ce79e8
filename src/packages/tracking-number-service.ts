import type { Db } from '../platform/db/database.js'
import { nextTrackingSequence } from './store/packages.js'
import { mayBeLegacyNumber, permuteSequence, trackingNumberOf } from './model/tracking-number.js'

export type TrackingNumbersService = ReturnType<typeof createTrackingNumbersService>

/** Issues tracking numbers. `key`: derived from the master secret; changing it could repeat numbers already issued. */
export function createTrackingNumbersService(deps: { db: Db; key: Buffer }) {
  return {
    async generate(): Promise<string> {
      for (;;) {
        const sequenceValue = await nextTrackingSequence(deps.db)
        const body = permuteSequence(deps.key, sequenceValue)
        if (!mayBeLegacyNumber(body, sequenceValue)) return trackingNumberOf(body)
      }
    },
  }
}
