import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { invalid } from '../platform/kit/errors.js'
import { listOptins, setOptin } from './store/summaries.js'
import type { SummaryEmail } from './api/schemas.js'

export interface SummaryServiceDeps {
  db: Db
  clock: Clock
  /** The active admins of a subscription, by user id. */
  admins(subId: string): Promise<Map<string, { email: string }>>
  schedule: { hour: number; timeZone: string; unclaimedDays: number }
}

/**
 * Who gets the daily summary email. A choice per admin, not per subscription: each admin decides
 * for their own inbox (a manager wants it, a co-admin who only manages users does not), and an
 * admin who leaves or becomes a clerk stops getting it without anyone remembering to switch it off.
 */
export function createSummaryService(deps: SummaryServiceDeps) {
  const { db, clock } = deps
  async function settings(subId: string): Promise<SummaryEmail> {
    const [optins, admins] = await Promise.all([listOptins(db, subId), deps.admins(subId)])
    return {
      ...deps.schedule,
      recipients: optins.flatMap((userId) => {
        const a = admins.get(userId)
        return a ? [{ userId, email: a.email }] : []
      }),
    }
  }
  return {
    settings,
    async setRecipient(subId: string, userId: string, enabled: boolean): Promise<SummaryEmail> {
      // Another subscription's user reads as no admin here: the same 400, nothing told.
      if (enabled && !(await deps.admins(subId)).has(userId))
        throw invalid('userId', `No active admin ${userId}: the summary goes to admins only.`)
      await setOptin(db, subId, userId, enabled, clock.now())
      return settings(subId)
    },
  }
}
export type SummaryService = ReturnType<typeof createSummaryService>
