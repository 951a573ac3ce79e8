import type { ContactsService, DirectoryContacts } from '../contacts/index.js'
import type { PackagesService } from '../packages/index.js'
import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { PeriodicTask } from '../platform/jobs/scheduler.js'
import { createDepartures, type Departures } from './departures.js'
import { createScimService, type ScimService } from './scim-service.js'
import { createScimTokensService, type ScimTokensService } from './scim-tokens-service.js'
import { createLdapService, type LdapService } from './ldap-service.js'

export interface DirectoryDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  contacts: DirectoryContacts & Pick<ContactsService, 'syncDirectory'>
  packages: Pick<PackagesService, 'waitingPackages' | 'recordsByIds'>
  /** Keys the HMAC of SCIM tokens. */
  tokenKey: Buffer
  /** Seals LDAP bind passwords. */
  sealKey: Buffer
  log?: (msg: string, extra: Record<string, unknown>) => void
  /** Told when departure events were committed (the outbox's consumers look at once). */
  onEventsCommitted?: () => void
}

export interface Directory {
  scim: ScimService
  tokens: ScimTokensService
  departures: Departures
  ldap: LdapService
  periodicTasks: PeriodicTask[]
}

/** The directory domain: SCIM provisioning and its tokens, departures of recipients. */
export function createDirectory(deps: DirectoryDeps): Directory {
  const { db, clock, ids } = deps
  const departures = createDepartures({
    db,
    clock,
    ids,
    contacts: deps.contacts,
    packages: deps.packages,
    onEventsCommitted: deps.onEventsCommitted,
    log: deps.log,
  })
  const ldap = createLdapService({ db, clock, ids, contacts: deps.contacts, sealKey: deps.sealKey, log: deps.log })
  return {
    scim: createScimService({ contacts: deps.contacts }),
    tokens: createScimTokensService({ db, clock, ids, key: deps.tokenKey }),
    departures,
    ldap,
    periodicTasks: [departures.periodicTask(), ldap.periodicTask()],
  }
}
