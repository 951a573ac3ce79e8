import type { Executor } from '../platform/db/transaction.js'
import type { Db } from '../platform/db/database.js'
import { inTransaction } from '../platform/db/transaction.js'
import { isAlpha2Country } from '../decode/index.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, registerErrors, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import * as repo from './store/locations.js'
import { countLiveSitesAt } from '../sites/index.js'
import type { Address, CreateLocation, ListLocationsQuery, Location, UpdateLocation } from './api/schemas.js'
import { isUniqueViolation } from '../platform/db/errors.js'
import { writeRecorded, type RecordOutcome } from '../platform/idempotency/outcome.js'

export const LOCATION_ERRORS = registerErrors({
  LOCATION_NOT_FOUND: { status: 404, errorCode: 'not_found', additionalCode: 'LOC-4040', message: 'No such location.' },
  LOCATION_NAME_TAKEN: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'LOC-4090',
    message: 'A location with this name already exists.',
  },
  LOCATION_IN_USE: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'LOC-4091',
    message: 'Inbound sites are placed at this location; delete them first.',
  },
})

/** A location as other domains read it (the API record). */
export type LocationRecord = Location

/** What locations need from the carrier catalogue. */
export interface LocationCarriers {
  getVisible(subId: string, ids: string[]): Promise<Map<string, { carrierId: string }>>
}

export interface LocationsServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  carriers: LocationCarriers
}

function toLocation(r: repo.LocationRow): Location {
  const { line1, line2, city, state, postalCode, country } = r.address
  const address: Location['address'] = { line1, city, state, postalCode, country }
  if (line2) address.line2 = line2
  return { locationId: r.location_id, name: r.name, address, timezone: r.timezone, carriers: r.carrier_ids }
}

/**
 * The zone as the runtime knows it, or undefined. ICU's canonical spelling is kept when it is the
 * same name ("america/new_york" → "America/New_York"); an alias ("US/Pacific") is kept as given,
 * as the client chose it. Offsets ("+05:30") are not IANA names.
 */
export function checkTimezone(tz: string): string | undefined {
  const given = tz.trim()
  if (given === '' || /^[+-]/.test(given)) return undefined
  try {
    const resolved = new Intl.DateTimeFormat(undefined, { timeZone: given }).resolvedOptions().timeZone
    return resolved.toLowerCase() === given.toLowerCase() ? resolved : given
  } catch {
    return undefined
  }
}

/** Trims the address, upper-cases the country, and checks the country and the zone together. */
function checked(address: Address | undefined, timezone: string | undefined): { address?: Address; timezone?: string } {
  const problems: Array<{ field: string; description: string }> = []
  let out: Address | undefined
  if (address) {
    const country = address.country.toUpperCase()
    if (!isAlpha2Country(country))
      problems.push({
        field: 'address.country',
        description: `${address.country} is not an ISO 3166-1 alpha-2 country code`,
      })
    out = {
      line1: address.line1.trim(),
      city: address.city.trim(),
      state: address.state.trim(),
      postalCode: address.postalCode.trim().toUpperCase(),
      country,
    }
    if (address.line2?.trim()) out.line2 = address.line2.trim()
  }
  const zone = timezone === undefined ? undefined : checkTimezone(timezone)
  if (timezone !== undefined && zone === undefined)
    problems.push({ field: 'timezone', description: `${timezone} is not an IANA time zone (e.g. America/New_York)` })
  if (problems.length > 0) throw new ValidationErrors(problems)
  return { address: out, timezone: zone }
}

export type LocationsService = ReturnType<typeof createLocationsService>

export function createLocationsService(deps: LocationsServiceDeps) {
  const { db, clock, ids, carriers } = deps

  async function nameGuard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError(LOCATION_ERRORS.LOCATION_NAME_TAKEN, { field: 'name', detail: e })
      throw e
    }
  }

  async function mustFind(
    trx: Parameters<typeof repo.findLocation>[0],
    subId: string,
    id: string,
    forUpdate = false,
  ): Promise<repo.LocationRow> {
    const row = await repo.findLocation(trx, subId, id, { forUpdate })
    if (!row) throw new AppError(LOCATION_ERRORS.LOCATION_NOT_FOUND, { detail: { id } })
    return row
  }

  return {
    async createLocation(subId: string, input: CreateLocation, outcome?: RecordOutcome<Location>): Promise<Location> {
      const { address, timezone } = checked(input.address, input.timezone)
      const at = clock.now()
      const row: repo.LocationRow = {
        location_id: ids('loc_'),
        sub_id: subId,
        name: input.name.trim(),
        address: address!,
        timezone: timezone!,
        carrier_ids: [],
        created_at: at,
        updated_at: at,
        deleted_at: null,
      }
      return nameGuard(() =>
        writeRecorded(db, outcome, toLocation(row), (ex) =>
          repo.insertLocation(ex, {
            location_id: row.location_id,
            sub_id: subId,
            name: row.name,
            address: row.address,
            timezone: row.timezone,
            at,
          }),
        ),
      )
    },

    async getLocation(subId: string, id: string): Promise<Location> {
      return toLocation(await mustFind(db, subId, id))
    },

    /** Merges: fields given replace (the address as a whole), fields absent stay. */
    async updateLocation(subId: string, id: string, input: UpdateLocation): Promise<Location> {
      const { address, timezone } = checked(input.address, input.timezone)
      return nameGuard(() =>
        inTransaction(db, async (trx) => {
          const cur = await mustFind(trx, subId, id, true)
          const at = clock.now()
          const next: repo.LocationRow = {
            ...cur,
            name: input.name?.trim() ?? cur.name,
            address: address ?? cur.address,
            timezone: timezone ?? cur.timezone,
            updated_at: at,
          }
          await repo.updateLocation(trx, subId, id, {
            name: next.name,
            address: next.address,
            timezone: next.timezone,
            at,
          })
          return toLocation(next)
        }),
      )
    },

    /** Replaces the carriers enabled at the location; each must be visible to the subscription. */
    async setCarriers(subId: string, id: string, carrierIds: string[]): Promise<Location> {
      // 404 before 400; the carrier check runs outside the transaction (PGlite has one connection,
      // and catalogue rows are never deleted, so the answer cannot go stale).
      await mustFind(db, subId, id)
      const visible = await carriers.getVisible(subId, carrierIds)
      const unknown = carrierIds.map((c, i) => ({ c, i })).filter(({ c }) => !visible.has(c))
      if (unknown.length > 0)
        throw new ValidationErrors(
          unknown.map(({ c, i }) => ({ field: `[${i}]`, description: `No carrier ${c} in the catalogue.` })),
        )
      return inTransaction(db, async (trx) => {
        const cur = await mustFind(trx, subId, id, true)
        // Stored as our canonical ids, whatever name matched (`FedEx` is FEDEX, carrier-aliases.ts).
        const next: repo.LocationRow = {
          ...cur,
          carrier_ids: [...new Set(carrierIds.map((c) => visible.get(c)!.carrierId))],
          updated_at: clock.now(),
        }
        await repo.updateLocation(trx, subId, id, { carrier_ids: next.carrier_ids, at: next.updated_at })
        return toLocation(next)
      })
    },

    /** Soft delete, refused while live inbound sites are placed here (their packages need the location). */
    async deleteLocation(subId: string, id: string): Promise<void> {
      await inTransaction(db, async (trx) => {
        await mustFind(trx, subId, id, true)
        const sites = await countLiveSitesAt(trx, subId, id)
        if (sites > 0)
          throw new AppError(LOCATION_ERRORS.LOCATION_IN_USE, {
            description: `${sites} inbound site(s) are placed at this location; delete them first.`,
          })
        const at = clock.now()
        await repo.updateLocation(trx, subId, id, { deleted_at: at, at })
      })
    },

    async listLocations(subId: string, q: ListLocationsQuery): Promise<{ locations: Location[]; totalCount: number }> {
      const { rows, total } = await repo.listLocations(db, subId, q)
      return { locations: rows.map(toLocation), totalCount: total }
    },

    /**
     * By id. Deleted locations are left out unless `includeDeleted` (for display of history, such as
     * a package's locationZip at a site deleted with its location).
     */
    async getByIds(
      subId: string,
      locationIds: string[],
      opts: { includeDeleted?: boolean } = {},
    ): Promise<Map<string, LocationRecord>> {
      const rows = await repo.findLocations(db, subId, [...new Set(locationIds)], opts)
      return new Map(rows.map((r) => [r.location_id, toLocation(r)]))
    },

    async exists(subId: string, id: string): Promise<boolean> {
      return (await repo.findLocations(db, subId, [id])).length > 0
    },

    /** A courier deleted in the caller's transaction leaves every location's list (CarriersService). */
    forgetCarrier: (ex: Executor, subId: string, carrierId: string) =>
      repo.removeCarrier(ex, subId, carrierId, clock.now()),
  }
}
