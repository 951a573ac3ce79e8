import type { DirectoryContacts } from '../contacts/index.js'
import { appendPackageEvents, type PackagesService } from '../packages/index.js'
import type { Db } from '../platform/db/database.js'
import { inTransaction } from '../platform/db/transaction.js'
import type { PeriodicTask } from '../platform/jobs/scheduler.js'
import type { Clock } from '../platform/kit/clock.js'
import type { IdGenerator } from '../platform/kit/ids.js'

export type DepartureReason = 'deactivated' | 'moved-out'

/** A departed recipient with parcels still waiting: an exception for the desk (the dashboard). */
export interface Departure {
  contactId: string
  name: string
  reason: DepartureReason
  moveOutDate?: string
  notedAt: string
  packages: Array<{ packageId: string; trackingNumber: string; pickupCode?: string }>
}

export interface DeparturesDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  contacts: Pick<DirectoryContacts, 'getDirectoryContact' | 'goneUnnoted' | 'goneNoted' | 'noteDeparture'>
  packages: Pick<PackagesService, 'waitingPackages' | 'recordsByIds'>
  onEventsCommitted?: () => void
  log?: (msg: string, extra: Record<string, unknown>) => void
}

const day = (at: Date) => at.toISOString().slice(0, 10)

/** How many departures one sweep notes, oldest first; the next sweep takes the rest. */
const SWEEP_BATCH = 200
/** How many departed recipients the dashboard looks at, newest first. */
const LISTED = 200

export type Departures = ReturnType<typeof createDepartures>

/**
 * A recipient who leaves (deactivated by SCIM, LDAP, a roster or a clerk; or their move-out date
 * reached) while parcels wait for them is an exception, not an orphan: each waiting parcel gets a
 * `RecipientDeparted` event (once per departure), and the dashboard lists them until they are
 * handed over or returned. Their pickup code keeps working all along: nothing here touches it.
 */
export function createDepartures(deps: DeparturesDeps) {
  const { db, clock, ids, contacts, packages } = deps

  /**
   * Notes one departure: with nothing waiting, only the mark (one statement); otherwise the mark
   * and an event per waiting parcel, in one transaction. Returns the events written.
   */
  async function note(
    subId: string,
    contactId: string,
    who?: { name: string; status: string; move_out: string | null },
  ): Promise<number> {
    const waiting = await packages.waitingPackages(subId, { receiverId: contactId })
    const at = clock.now()
    if (waiting.length === 0) {
      await contacts.noteDeparture(db, subId, contactId, at)
      return 0
    }
    const c = who ?? (await readContact(subId, contactId))
    if (!c) return 0
    const records = await packages.recordsByIds(
      subId,
      waiting.map((w) => w.package_id),
    )
    const reason: DepartureReason = c.status !== 'active' ? 'deactivated' : 'moved-out'
    const moveOutDate = c.move_out ?? undefined
    const written = await inTransaction(db, async (trx) => {
      if (!(await contacts.noteDeparture(trx, subId, contactId, at))) return 0
      await appendPackageEvents(
        trx,
        records.map((r) => ({
          eventId: ids('evt_'),
          subId,
          packageId: r.packageId,
          variant: 'tracking' as const,
          eventName: 'RecipientDeparted',
          occurredAt: at,
          data: {
            packageId: r.packageId,
            trackingNumber: r.trackingNumber,
            currentStatus: r.currentStatus,
            previousStatus: r.currentStatus,
            currentLocation: r.currentLocation ?? null,
            departure: { contactId, name: c.name, reason, ...(moveOutDate ? { moveOutDate } : {}) },
          },
        })),
      )
      return records.length
    })
    if (written > 0) deps.onEventsCommitted?.()
    return written
  }

  async function readContact(subId: string, contactId: string) {
    const c = await contacts.getDirectoryContact(subId, contactId, { any: true }).catch(() => undefined)
    return c && { name: c.name, status: c.active ? 'active' : 'inactive', move_out: c.moveOutDate ?? null }
  }

  return {
    /** The contacts domain's hook: told of departures as they are written. */
    async onDeparted(subId: string, contactIds: string[]): Promise<void> {
      // Called after the write committed: a failure here must not turn it into an error for the
      // caller (a SCIM provider would retry a write that happened). The sweep notes what is missed.
      for (const id of contactIds)
        await note(subId, id).catch((err: unknown) =>
          deps.log?.('departure not noted; the sweep will', { subId, contactId: id, err: String(err) }),
        )
    },

    /** Notes the departures not noted yet (move-out dates that passed, a hook a crash missed); returns the events written. */
    async sweep(): Promise<number> {
      let events = 0
      for (const c of await contacts.goneUnnoted(day(clock.now()), SWEEP_BATCH))
        events += await note(c.sub_id, c.contact_id, c)
      return events
    },

    periodicTask(everyMs = 60_000): PeriodicTask {
      return { name: 'recipient departures', everyMs, run: () => this.sweep() }
    },

    /** The dashboard's exceptions: departed recipients with parcels still waiting, newest departure first. */
    async listDepartures(subId: string): Promise<Departure[]> {
      const out: Departure[] = []
      for (const c of await contacts.goneNoted(subId, day(clock.now()), LISTED)) {
        const waiting = await packages.waitingPackages(subId, { receiverId: c.contact_id })
        if (waiting.length === 0) continue
        const moveOutDate = c.move_out ?? undefined
        out.push({
          contactId: c.contact_id,
          name: c.name,
          reason: c.status !== 'active' ? 'deactivated' : 'moved-out',
          ...(moveOutDate ? { moveOutDate } : {}),
          notedAt: new Date(c.departure_noted_at!).toISOString(),
          packages: waiting.map((w) => ({
            packageId: w.package_id,
            trackingNumber: w.tracking_number,
            ...(w.pickup_code ? { pickupCode: w.pickup_code } : {}),
          })),
        })
      }
      return out
    },
  }
}
