import type { Departures } from '../directory/index.js'
import type { Holds } from '../holds/index.js'
import { createExceptionsService, type ExceptionsService } from '../exceptions/index.js'

export type { ExceptionsService }
import { failedNotifications } from '../notifications/index.js'
import { countWaiting, oldestWaiting, waitingAmong, type PackagesService } from '../packages/index.js'
import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { openIssueRefs } from '../scanissues/index.js'
import { latestMissing } from '../shelves/index.js'
import { siteIdsUnder } from '../sites/index.js'

/**
 * The exceptions list (issue 30.3) composed from the owners of each kind: every question is the
 * owner's own store query, exported by its index.ts, so each domain's SQL names its own tables only.
 */
export function composeExceptions(deps: {
  db: Db
  clock: Clock
  packages: Pick<PackagesService, 'recordsByIds'>
  departures: Pick<Departures, 'listDepartures'>
  returns: Pick<Holds['returns'], 'openReturnProposals'>
}): ExceptionsService {
  const { db } = deps
  return createExceptionsService({
    clock: deps.clock,
    async sitesUnder(subId, siteId) {
      const rows = await siteIdsUnder(db, subId, siteId).execute()
      return rows.length === 0 ? undefined : rows.map((r) => r.site_id)
    },
    packages: {
      oldestWaiting: (subId, q) => oldestWaiting(db, subId, q),
      countWaiting: (subId, q) => countWaiting(db, subId, q),
      waitingAmong: (subId, ids, siteIds) => waitingAmong(db, subId, ids, siteIds),
      recordsByIds: (subId, ids) => deps.packages.recordsByIds(subId, ids),
    },
    openScanIssues: (subId, limit) => openIssueRefs(db, subId, limit),
    departures: (subId) => deps.departures.listDepartures(subId),
    failedNotifications: (subId, limit) => failedNotifications(db, subId, limit),
    shelvesMissing: (subId) => latestMissing(db, subId),
    returnProposals: (subId, q) => deps.returns.openReturnProposals(subId, q),
  })
}
