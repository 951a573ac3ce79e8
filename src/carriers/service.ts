import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, registerErrors, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { Invalidations } from '../platform/cache/invalidations.js'
import { SubscriptionCache } from '../platform/cache/subscription-cache.js'
import { findCarrier } from './model/carrier-aliases.js'
import * as repo from './store/carriers.js'
import type {
  CarriersAtLocationsQuery,
  CatalogCarrier,
  CatalogQuery,
  CreateCourier,
  LocationCarrier,
} from './api/schemas.js'
import { isForeignKeyViolation, isUniqueViolation } from '../platform/db/errors.js'
import { inTransaction, type Executor } from '../platform/db/transaction.js'
import { writeRecorded, type RecordOutcome } from '../platform/idempotency/outcome.js'
import { carrierInUse } from '../packages/index.js'

export const CARRIER_ERRORS = registerErrors({
  CARRIER_NAME_TAKEN: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'CAR-4090',
    message: 'A carrier with this name already exists in the catalogue.',
  },
  CARRIER_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'CAR-4040',
    message: 'No such courier in this subscription.',
  },
  CARRIER_BUILT_IN: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'CAR-4091',
    message: 'Built-in carriers are shared by every subscription: they cannot be changed or deleted.',
  },
  CARRIER_IN_USE: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'CAR-4092',
    message: 'Packages name this courier, and their history keeps it: rename it instead of deleting it.',
  },
})

/** A carrier as packages read it. */
export interface CarrierRecord {
  carrierId: string
  name: string
  scac?: string
  barcodeAware: boolean
  services: string[]
}

/** What carriers need from locations: the carriers each one enables (empty: none configured). */
export interface CarrierLocations {
  getByIds(subId: string, ids: string[]): Promise<Map<string, { carriers: string[] }>>
  /** Takes a deleted courier out of every location's list, in the deletion's transaction. */
  forgetCarrier(ex: Executor, subId: string, carrierId: string): Promise<void>
}

export interface CarriersServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  locations: CarrierLocations
  /** How long the visible catalogue is remembered per subscription (see SubscriptionCache); 0: not at all. */
  cacheMs?: number
  /** Tells the other processes of the deployment that a subscription's catalogue changed. */
  invalidations: Invalidations
}

function toRecord(r: repo.CarrierRow): CarrierRecord {
  const out: CarrierRecord = {
    carrierId: r.carrier_id,
    name: r.name,
    barcodeAware: r.barcode_aware,
    services: r.services,
  }
  if (r.scac !== null) out.scac = r.scac
  return out
}

function toCatalogCarrier(r: repo.CarrierRow): CatalogCarrier {
  return { ...toRecord(r), builtIn: r.sub_id === null }
}

/** The body of `POST /api/v1/carriers`: each element split on commas, trimmed, empties dropped. */
export function parseLocationIdList(body: string[]): Array<{ index: number; id: string }> {
  return body.flatMap((element, index) =>
    element
      .split(',')
      .map((id) => ({ index, id: id.trim() }))
      .filter((x) => x.id !== ''),
  )
}

/** A courier's name and services as given, trimmed; a service listed twice (ignoring case) is a 400 naming it. */
function courierFields(input: CreateCourier): { name: string; services: string[] } {
  const services: string[] = []
  const problems: Array<{ field: string; description: string }> = []
  for (const [i, s] of (input.services ?? []).entries()) {
    if (services.some((x) => x.toLowerCase() === s.trim().toLowerCase()))
      problems.push({ field: `services[${i}]`, description: `Service "${s.trim()}" is listed twice` })
    else services.push(s.trim())
  }
  if (problems.length > 0) throw new ValidationErrors(problems)
  return { name: input.name.trim(), services }
}

export type CarriersService = ReturnType<typeof createCarriersService>

export function createCarriersService(deps: CarriersServiceDeps) {
  const { db, clock, ids, locations } = deps
  const visible = new SubscriptionCache<readonly repo.CarrierRow[]>(clock, deps.cacheMs ?? 0)
  deps.invalidations.on('carriers', visible.drop)
  const visibleCarriers = (subId: string) =>
    visible.get(subId, async () => Object.freeze(await repo.listVisibleCarriers(db, subId)))

  // Built-ins live under sub_id null, outside the unique index's reach for this subscription: checked here.
  // Two concurrent writes of one own name are still settled by the index.
  async function checkNameFree(subId: string, name: string, except?: string): Promise<void> {
    const holder = await repo.findVisibleByName(db, subId, name)
    if (holder && holder.carrier_id !== except) throw new AppError(CARRIER_ERRORS.CARRIER_NAME_TAKEN, { field: 'name' })
  }

  /**
   * A change to the subscription's catalogue, written with its announcement to the other processes
   * in one transaction (`run`: a plain one, or one that records the Idempotency-Key's answer too): a
   * name another write took meanwhile is a 409, and this process's copy is dropped whatever happened.
   */
  async function changeCatalogue(
    subId: string,
    write: (ex: Executor) => Promise<unknown>,
    run: (work: (ex: Executor) => Promise<void>) => Promise<unknown> = (work) => inTransaction(db, work),
  ): Promise<void> {
    try {
      await run(async (ex) => {
        await write(ex)
        await deps.invalidations.announce(ex, 'carriers', subId)
      })
    } catch (e) {
      if (isUniqueViolation(e)) throw new AppError(CARRIER_ERRORS.CARRIER_NAME_TAKEN, { field: 'name', detail: e })
      throw e
    } finally {
      visible.invalidate(subId)
    }
  }

  /** The subscription's own courier, or why not: a built-in (409) or nothing of ours (404). */
  async function ownCourier(subId: string, carrierId: string): Promise<repo.CarrierRow> {
    const row = await repo.findOwnCarrier(db, subId, carrierId)
    if (row) return row
    if (await repo.isBuiltIn(db, carrierId))
      throw new AppError(CARRIER_ERRORS.CARRIER_BUILT_IN, { field: 'carrierId', detail: { carrierId } })
    throw new AppError(CARRIER_ERRORS.CARRIER_NOT_FOUND, { detail: { carrierId } })
  }

  return {
    async listCatalog(subId: string, q: CatalogQuery): Promise<{ carriers: CatalogCarrier[]; totalCount: number }> {
      const rows = (await visibleCarriers(subId)).filter(
        (r) => q.barcodeAware === undefined || r.barcode_aware === q.barcodeAware,
      )
      return { carriers: rows.slice(q.skip, q.skip + q.limit).map(toCatalogCarrier), totalCount: rows.length }
    },

    async addCourier(
      subId: string,
      input: CreateCourier,
      outcome?: RecordOutcome<CatalogCarrier>,
    ): Promise<CatalogCarrier> {
      const { name, services } = courierFields(input)
      await checkNameFree(subId, name)
      const row: repo.CarrierRow = {
        carrier_id: ids('car_'),
        sub_id: subId,
        name,
        scac: null,
        barcode_aware: input.barcodeAware ?? false,
        services,
      }
      await changeCatalogue(
        subId,
        (ex) =>
          repo.insertCarrier(ex, {
            carrier_id: row.carrier_id,
            sub_id: subId,
            name,
            barcode_aware: row.barcode_aware,
            services,
            at: clock.now(),
          }),
        (write) => writeRecorded(db, outcome, toCatalogCarrier(row), write),
      )
      return toCatalogCarrier(row)
    },

    /** Replaces the name, services and barcodeAware of one of the subscription's own couriers. */
    async updateCourier(subId: string, carrierId: string, input: CreateCourier): Promise<CatalogCarrier> {
      await ownCourier(subId, carrierId)
      const { name, services } = courierFields(input)
      await checkNameFree(subId, name, carrierId)
      const row: repo.CarrierRow = {
        carrier_id: carrierId,
        sub_id: subId,
        name,
        scac: null,
        barcode_aware: input.barcodeAware ?? false,
        services,
      }
      await changeCatalogue(subId, async (trx) => {
        // Deleted since it was read: not found, rather than an answer about a courier that is gone.
        if (!(await repo.updateCarrier(trx, subId, carrierId, { name, barcode_aware: row.barcode_aware, services })))
          throw new AppError(CARRIER_ERRORS.CARRIER_NOT_FOUND, { detail: { carrierId } })
      })
      return toCatalogCarrier(row)
    },

    /**
     * Deletes one of the subscription's own couriers and takes it out of every location's list.
     * Refused while a package names it (409): the history of those packages keeps the courier.
     */
    async deleteCourier(subId: string, carrierId: string): Promise<void> {
      await ownCourier(subId, carrierId)
      const inUse = () => new AppError(CARRIER_ERRORS.CARRIER_IN_USE, { field: 'carrierId', detail: { carrierId } })
      try {
        await changeCatalogue(subId, async (trx) => {
          if (await carrierInUse(trx, subId, carrierId)) throw inUse()
          await deps.locations.forgetCarrier(trx, subId, carrierId)
          await repo.deleteCarrier(trx, subId, carrierId)
        })
      } catch (e) {
        // A package added with it between the check and the delete: the foreign key refuses the delete.
        if (isForeignKeyViolation(e)) throw inUse()
        throw e
      }
    },

    /**
     * CONTRACT §3 `POST /api/v1/carriers`: the carriers enabled at the given locations (the union
     * of their lists), sorted by name and paged. A location with no carriers configured offers the
     * whole visible catalogue, so a fresh setup works before anyone curates the lists.
     */
    async carriersAtLocations(
      subId: string,
      body: string[],
      q: CarriersAtLocationsQuery,
    ): Promise<{ carriers: LocationCarrier[]; totalCount: number }> {
      const wanted = parseLocationIdList(body)
      if (wanted.length === 0)
        throw new ValidationErrors([{ field: '[0]', description: 'Give at least one location id.' }])
      const found = await locations.getByIds(subId, [...new Set(wanted.map((w) => w.id))])
      const missing = wanted.filter((w) => !found.has(w.id))
      if (missing.length > 0)
        throw new ValidationErrors(missing.map((w) => ({ field: `[${w.index}]`, description: `No location ${w.id}.` })))

      const lists = [...found.values()].map((l) => l.carriers)
      const everything = lists.some((l) => l.length === 0)
      const enabled = new Set(lists.flat())
      const rows = (await visibleCarriers(subId))
        .filter((r) => everything || enabled.has(r.carrier_id))
        .filter((r) => q.barcodeAware === undefined || r.barcode_aware === q.barcodeAware)
      const start = (q.page - 1) * q.size
      return {
        carriers: rows
          .slice(start, start + q.size)
          .map((r) => ({ carrierId: r.carrier_id, name: r.name, barcodeAware: r.barcode_aware, services: r.services })),
        totalCount: rows.length,
      }
    },

    /**
     * The carriers among `ids` the subscription can use (built-in or its own), keyed by the id as
     * given: an id that is not ours exactly is looked up as PB clients name carriers (carrier-aliases.ts),
     * and the record then carries our canonical id.
     */
    async getVisible(subId: string, carrierIds: string[]): Promise<Map<string, CarrierRecord>> {
      const wanted = new Set(carrierIds)
      const rows = deps.cacheMs
        ? (await visibleCarriers(subId)).filter((r) => wanted.has(r.carrier_id))
        : await repo.findVisibleCarriers(db, subId, [...wanted])
      const out = new Map(rows.map((r) => [r.carrier_id, toRecord(r)]))
      const unmatched = [...wanted].filter((id) => !out.has(id))
      if (unmatched.length > 0) {
        const all = await visibleCarriers(subId)
        for (const id of unmatched) {
          const hit = findCarrier(all, id)
          if (hit) out.set(id, toRecord(hit))
        }
      }
      return out
    },
  }
}
