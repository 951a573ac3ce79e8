import type { Db } from '../db/database.js'
import { formatTrackingNumber } from './trackingnumbers.format.js'
import { nextTrackingSequence } from './trackingnumbers.repo.js'

export type TrackingNumbersService = ReturnType<typeof createTrackingNumbersService>

export function createTrackingNumbersService(deps: { db: Db }) {
  return {
    async generate(): Promise<string> {
      return formatTrackingNumber(await nextTrackingSequence(deps.db))
    },
  }
}
