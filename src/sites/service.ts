import type { Executor } from '../platform/db/transaction.js'
import type { Db } from '../platform/db/database.js'
import { inTransaction, type Trx } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, invalid, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { Invalidations } from '../platform/cache/invalidations.js'
import { createSiteInfos } from './infos.js'
import * as repo from './store/sites.js'
import { SITE_SORT_FIELDS, type CreateSite, type ListSitesQuery, type Site, type UpdateSite } from './api/schemas.js'
import { SITE_ERRORS } from './model/errors.js'
import { toSite } from './model/view.js'
import { isUniqueViolation } from '../platform/db/errors.js'
import type { RecordOutcome } from '../platform/idempotency/outcome.js'
import { handOverChains, type HandOverRule } from './model/hand-over-rules.js'
import { chainOf } from './model/site-chain.js'
import { holdingFeeColumns } from './model/holding-fee.js'
import { quietHoursColumns } from './model/quiet-hours.js'

export interface SitesServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  /** Which of `ids` are locations of the subscription (the locations domain answers). */
  existingLocationIds(subId: string, ids: string[]): Promise<Set<string>>
  /** How long sites looked up by id are remembered per subscription (see SubscriptionCache); 0: not at all. */
  cacheMs?: number
  /** Tells the other processes of the deployment that a subscription's tree changed. */
  invalidations: Invalidations
}

export type SitesService = ReturnType<typeof createSitesService>

export function createSitesService(deps: SitesServiceDeps) {
  const { db, clock, ids } = deps
  const infos = createSiteInfos({ db, clock, cacheMs: deps.cacheMs ?? 0, invalidations: deps.invalidations })
  /** Runs a write of the subscription's tree, then forgets what the cache holds of it (a rename or move changes other sites' paths too). */
  const changing = <T>(subId: string, write: () => Promise<T>): Promise<T> =>
    write().finally(() => infos.invalidate(subId))

  /** Locks the subscription's tree for this transaction, whose commit tells the other processes to forget it. */
  async function lockTree(trx: Trx, subId: string): Promise<void> {
    await repo.lockTree(trx, subId)
    await deps.invalidations.announce(trx, 'sites', subId)
  }

  async function mustFind(
    trx: Parameters<typeof repo.findSite>[0],
    subId: string,
    id: string,
    forUpdate = false,
  ): Promise<repo.SiteRow> {
    const row = await repo.findSite(trx, subId, id, { forUpdate })
    if (!row) throw new AppError(SITE_ERRORS.SITE_NOT_FOUND, { detail: { id } })
    return row
  }

  /** The rows of these sites and of all their ancestors. */
  async function chainRows(ex: Executor, subId: string, siteIds: string[]): Promise<repo.SiteRow[]> {
    const own = await repo.findSites(ex, subId, [...new Set(siteIds)])
    const above = [...new Set(own.flatMap((r) => r.ancestor_ids))]
    return [...own, ...(above.length ? await repo.findSites(ex, subId, above) : [])]
  }

  return {
    async createSite(
      subId: string,
      input: CreateSite,
      outcome?: RecordOutcome<{ inboundSiteId: string }>,
    ): Promise<{ inboundSiteId: string }> {
      const siteId = ids('site_')
      const at = clock.now()
      // Checked before the transaction: the locations domain reads through its own connection.
      if (input.type === 'site' && !(await deps.existingLocationIds(subId, [input.locationId])).has(input.locationId))
        throw invalid('locationId', `No location ${input.locationId}.`)
      try {
        await changing(subId, () =>
          inTransaction(db, async (trx) => {
            // One writer per subscription's tree: a child is never created under a parent being
            // deleted, and two "primary" requests never race to the one-primary index.
            await lockTree(trx, subId)
            if (input.type === 'site') {
              if (input.primary) await repo.clearPrimary(trx, subId, at)
              await repo.insertSite(trx, {
                site_id: siteId,
                sub_id: subId,
                name: input.name.trim(),
                type: 'site',
                parent_id: null,
                location_id: input.locationId,
                ancestor_ids: [],
                path_names: [input.name.trim()],
                status: input.status ?? 'active',
                is_primary: input.primary ?? false,
                opening_hours: input.openingHours?.trim() ?? null,
                signature_rule: input.signatureRule ?? null,
                photo_proof_allowed: input.photoProofAllowed ?? null,
                ...holdingFeeColumns(input.holdingFee),
                ...quietHoursColumns(input.quietHours),
                at,
              })
              return outcome?.(trx, { inboundSiteId: siteId })
            }
            const parent = await repo.findSite(trx, subId, input.parent)
            if (!parent) throw invalid('parent', `No inbound site ${input.parent}.`)
            await repo.insertSite(trx, {
              site_id: siteId,
              sub_id: subId,
              name: input.name.trim(),
              type: input.type,
              parent_id: parent.site_id,
              location_id: parent.location_id,
              ancestor_ids: [...parent.ancestor_ids, parent.site_id],
              path_names: [...parent.path_names, input.name.trim()],
              status: input.status ?? 'active',
              is_primary: false,
              opening_hours: input.openingHours?.trim() ?? null,
              signature_rule: input.signatureRule ?? null,
              photo_proof_allowed: input.photoProofAllowed ?? null,
              ...holdingFeeColumns(input.holdingFee),
              ...quietHoursColumns(input.quietHours),
              at,
            })
            await outcome?.(trx, { inboundSiteId: siteId })
          }),
        )
      } catch (e) {
        if (isUniqueViolation(e, 'inbound_sites_sibling_name_uq'))
          throw new AppError(SITE_ERRORS.SITE_NAME_TAKEN, { field: 'name', detail: e })
        throw e
      }
      return { inboundSiteId: siteId }
    },

    /** Rename, move (the whole subtree, in one transaction), status and primary flag. */
    async updateSite(subId: string, siteId: string, input: UpdateSite): Promise<void> {
      const at = clock.now()
      try {
        await changing(subId, () =>
          inTransaction(db, async (trx) => {
            await lockTree(trx, subId)
            const site = await mustFind(trx, subId, siteId, true)
            const name = input.name?.trim() ?? site.name
            let ancestors = site.ancestor_ids
            let parentPath = site.path_names.slice(0, -1)
            let locationId = site.location_id
            let parentId = site.parent_id
            if (input.parent !== undefined && input.parent !== site.parent_id) {
              if (site.type === 'site')
                throw invalid('parent', 'A top-tier site (type "site") cannot be moved under another site.')
              const parent = await repo.findSite(trx, subId, input.parent)
              if (!parent) throw invalid('parent', `No inbound site ${input.parent}.`)
              if (parent.site_id === site.site_id || parent.ancestor_ids.includes(site.site_id)) {
                throw invalid('parent', 'The move would put the site under itself.')
              }
              ancestors = [...parent.ancestor_ids, parent.site_id]
              parentPath = parent.path_names
              locationId = parent.location_id
              parentId = parent.site_id
            }
            const pathNames = [...parentPath, name]
            if (input.primary === true && site.type !== 'site')
              throw invalid('primary', 'Only a top-tier site (type "site") can be primary.')
            if (input.primary === true && !site.is_primary) await repo.clearPrimary(trx, subId, at)
            await repo.updateSiteRow(trx, subId, siteId, {
              name,
              status: input.status ?? site.status,
              is_primary: input.primary ?? site.is_primary,
              parent_id: parentId,
              location_id: locationId,
              ancestor_ids: ancestors,
              path_names: pathNames,
              ...(input.openingHours !== undefined ? { opening_hours: input.openingHours?.trim() ?? null } : {}),
              ...(input.signatureRule !== undefined ? { signature_rule: input.signatureRule } : {}),
              ...(input.photoProofAllowed !== undefined ? { photo_proof_allowed: input.photoProofAllowed } : {}),
              ...(input.holdingFee !== undefined ? holdingFeeColumns(input.holdingFee) : {}),
              ...(input.quietHours !== undefined ? quietHoursColumns(input.quietHours) : {}),
              updated_at: at,
            })
            const structural = name !== site.name || parentId !== site.parent_id
            if (structural)
              await repo.rewriteSubtree(
                trx,
                subId,
                siteId,
                site.ancestor_ids.length,
                { ancestorIds: ancestors, pathNames, locationId },
                at,
              )
          }),
        )
      } catch (e) {
        if (isUniqueViolation(e, 'inbound_sites_sibling_name_uq'))
          throw new AppError(SITE_ERRORS.SITE_NAME_TAKEN, { field: 'name', detail: e })
        throw e
      }
    },

    /** Soft delete of the subtree (packages keep pointing at it for their history); refused while any site under it is active. */
    async deleteSite(subId: string, siteId: string): Promise<void> {
      await changing(subId, () =>
        inTransaction(db, async (trx) => {
          await lockTree(trx, subId)
          await mustFind(trx, subId, siteId, true)
          if ((await repo.countActiveDescendants(trx, subId, siteId)) > 0)
            throw new AppError(SITE_ERRORS.SITE_HAS_CHILDREN)
          await repo.softDeleteSubtree(trx, subId, siteId, clock.now())
        }),
      )
    },

    async listSites(subId: string, q: ListSitesQuery): Promise<{ inboundSites: Site[]; totalCount: number }> {
      const [sortField, dir] = q.sort.split(',') as [(typeof SITE_SORT_FIELDS)[number], string]
      const filter: repo.SiteFilter = {
        subId,
        nameContains: q.query?.trim() || undefined,
        primaryOnly: q.fetchPrimarySite,
        status: q.status,
      }
      if (q.searchBy) {
        const [kind, id] = q.searchBy.split(':') as ['parent' | 'ancestorlist', string]
        if (kind === 'parent') filter.parentId = id
        else filter.ancestorId = id
      }
      if (q.timestamp) {
        const before = q.timestamp.startsWith('before:')
        const at = new Date(q.timestamp.replace(/^(before|after):/, ''))
        if (Number.isNaN(at.getTime())) throw invalid('timestamp', 'timestamp is not a valid ISO 8601 time')
        if (before) filter.updatedBefore = at
        else filter.updatedAfter = at
      }
      const { rows, total } = await repo.listSites(db, filter, {
        skip: q.skip,
        limit: q.limit,
        sort: sortField,
        desc: dir.toUpperCase() === 'DESC',
      })
      return { inboundSites: rows.map(toSite), totalCount: total }
    },

    async sitesOfLocations(
      subId: string,
      locationIds: string[],
    ): Promise<{ locations: Array<{ locationId: string; inboundSites: Site[] }> }> {
      const wanted = [...new Set(locationIds.map((s) => s.trim()))]
      const known = await deps.existingLocationIds(subId, wanted)
      const problems = locationIds.map((id, i) => ({ id: id.trim(), i })).filter(({ id }) => !known.has(id))
      if (problems.length)
        throw new ValidationErrors(
          problems.map(({ id, i }) => ({ field: `[${i}]`, description: `No location ${id}.` })),
        )
      const rows = await repo.listSitesOfLocations(db, subId, wanted)
      return {
        locations: wanted.map((locationId) => ({
          locationId,
          inboundSites: rows.filter((r) => r.location_id === locationId).map(toSite),
        })),
      }
    },

    getInfos: infos.getInfos,

    /**
     * The hand-over proof rule chain of each site (itself, then its ancestors nearest first), for
     * pickups; read in the caller's transaction (`ex`) when it has one.
     */
    async handOverRules(subId: string, siteIds: string[], ex: Executor = db): Promise<Map<string, HandOverRule[]>> {
      return handOverChains(siteIds, await chainRows(ex, subId, siteIds))
    },

    /** The opening hours an email shows for a site: its own, else its nearest live ancestor's. */
    async openingHoursAt(subId: string, siteId: string): Promise<string | undefined> {
      const byId = new Map((await chainRows(db, subId, [siteId])).map((r) => [r.site_id, r]))
      return (
        chainOf(siteId, byId).find((r) => r.deleted_at === null && r.opening_hours !== null)?.opening_hours ?? undefined
      )
    },

    primarySiteId: (subId: string) => repo.findPrimarySiteId(db, subId),

    async existingSiteIds(subId: string, siteIds: string[]): Promise<Set<string>> {
      const rows = await repo.findSites(db, subId, [...new Set(siteIds)])
      return new Set(rows.filter((r) => r.deleted_at === null).map((r) => r.site_id))
    },
  }
}
