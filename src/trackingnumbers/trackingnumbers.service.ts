import type { Db } from '../db/database.js'
import { mayBeLegacyNumber, permuteSequence, trackingNumberOf } from './trackingnumbers.format.js'
import { nextTrackingSequence } from './trackingnumbers.repo.js'

export type TrackingNumbersService = ReturnType<typeof createTrackingNumbersService>

/** `key`: derived from the master secret; changing it could repeat numbers already issued. */
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
