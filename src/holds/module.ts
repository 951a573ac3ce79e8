import type { ContactsService } from '../contacts/index.js'
import type { PackagesService } from '../packages/index.js'
import type { SitesService } from '../sites/index.js'
import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { createHoldsService } from './holds-service.js'
import { createProposalJob } from './jobs/propose.js'
import { createReturnsService } from './returns-service.js'

export type Holds = ReturnType<typeof createHolds>

/** The holds domain's services and its periodic job, for the composition root. */
export function createHolds(deps: {
  db: Db
  clock: Clock
  ids: IdGenerator
  contacts: Pick<ContactsService, 'getContact'>
  sites: Pick<SitesService, 'getInfos'>
  packages: PackagesService
}) {
  const proposals = createProposalJob(deps)
  return {
    holds: createHoldsService(deps),
    returns: createReturnsService(deps),
    /** Proposes returns once a parcel waited past its site's deadline (registered with the one scheduler). */
    proposals,
    periodicTasks: [proposals.task],
  }
}
