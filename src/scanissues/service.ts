import type { RecipientMatch, RecipientQuery } from '../contacts/index.js'
import type { SiteInfo, SiteRef } from '../sites/index.js'
import { parsePersonName } from '../decode/index.js'
import type { Actor, PackageRecord } from '../packages/index.js'
import { appendPackageEvents } from '../packages/index.js'
import type { Db } from '../platform/db/database.js'
import { inTransaction, type Trx } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, registerErrors, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { ListScanIssuesQuery, OpenScanIssue, ScanIssue } from './api/schemas.js'
import { MAX_SUGGESTIONS, type ScanIssueReason, type StoredSuggestion } from './model/issue.js'
import { checkIssueSiteScope } from './model/site-scope.js'
import * as repo from './store/issues.js'
import type { ScanIssueRow } from './store/tables.js'

export const SCAN_ISSUE_ERRORS = registerErrors({
  SCAN_ISSUE_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'SCI-4040',
    message: 'No such scan issue.',
  },
  SCAN_ISSUE_OPEN: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'SCI-4090',
    message: 'The package already has an open scan issue.',
  },
  SCAN_ISSUE_SETTLED: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'SCI-4091',
    message: 'The scan issue is already settled.',
  },
})

export interface ScanIssuesDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  packages: {
    recordsByIds(subId: string, packageIds: string[]): Promise<PackageRecord[]>
    getImages(subId: string, packageId: string): Promise<{ images: Array<{ imageId: string }> }>
    updatePackage(
      actor: Actor,
      packageId: string,
      body: { package: { receiver: { contactId: string } } },
      ifMatch?: number,
      first?: (trx: Trx) => Promise<void>,
    ): Promise<unknown>
  }
  sites: { getInfos(subId: string, siteIds: string[]): Promise<Map<string, SiteInfo>> }
  matchRecipient(subId: string, q: RecipientQuery): Promise<RecipientMatch>
  onEventsCommitted?: () => void
}

export type ScanIssuesService = ReturnType<typeof createScanIssuesService>

/**
 * The scan-issues queue: packages received from a label photo whose recipient was not chosen.
 * Opening one runs the directory match again on what the label said (the suggestions and the
 * reason are the service's, not the caller's) and tells integrations (ScanIssueOpened); settling
 * one sets the package's receiver (a package update: its own activity and events) and the issue
 * (ScanIssueSettled) in one transaction.
 */
export function createScanIssuesService(deps: ScanIssuesDeps) {
  const { db, clock, ids } = deps

  async function packageOf(subId: string, packageId: string, field: string): Promise<PackageRecord> {
    const [record] = await deps.packages.recordsByIds(subId, [packageId])
    if (!record) throw new AppError('VALIDATION_FAILED', { field, description: 'No such package.' })
    return record
  }

  /** A clerk limited to a site: the package (and the issue's site) at it or below, else 400 naming `packageField`. */
  async function checkScope(actor: Actor, p: PackageRecord | undefined, packageField: string, issueSite?: string) {
    if (actor.siteScope === undefined) return
    // The record's location is a SiteRef (packages/model/fields.ts), typed loosely by the registry.
    const packageSite = (p?.currentLocation as SiteRef | undefined)?.inboundSiteId
    const ids = [packageSite, issueSite].filter((id): id is string => !!id)
    const sites = ids.length > 0 ? await deps.sites.getInfos(actor.subId, ids) : new Map<string, SiteInfo>()
    checkIssueSiteScope(actor.siteScope, sites, { packageSite, issueSite, packageField })
  }

  async function publish(trx: Parameters<typeof appendPackageEvents>[0], row: ScanIssueRow, p: PackageRecord) {
    await appendPackageEvents(trx, [
      {
        eventId: ids('evt_'),
        subId: row.sub_id,
        packageId: row.package_id,
        variant: 'tracking',
        eventName: row.status === 'open' ? 'ScanIssueOpened' : 'ScanIssueSettled',
        occurredAt: clock.now(),
        data: {
          packageId: p.packageId,
          trackingNumber: p.trackingNumber,
          currentStatus: p.currentStatus,
          previousStatus: p.currentStatus,
          currentLocation: p.currentLocation ?? null,
          scanIssue: {
            scanIssueId: row.scan_issue_id,
            reason: row.reason,
            status: row.status,
            suggestions: row.suggestions.map((s) => ({ contactId: s.contactId, name: s.name, score: s.score })),
            ...(row.contact_id ? { contactId: row.contact_id } : {}),
          },
        },
      },
    ])
  }

  return {
    async openIssue(actor: Actor, body: OpenScanIssue): Promise<ScanIssue> {
      const record = await packageOf(actor.subId, body.packageId, 'packageId')
      await checkScope(actor, record, 'packageId', body.siteId)
      if (body.imageId) {
        const { images } = await deps.packages.getImages(actor.subId, body.packageId)
        if (!images.some((i) => i.imageId === body.imageId))
          throw new AppError('VALIDATION_FAILED', { field: 'imageId', description: 'Not an image of this package.' })
      }
      const query: RecipientQuery = {}
      const name = body.read.name ? parsePersonName(body.read.name) : undefined
      if (name) query.name = name
      if (body.read.company) query.company = body.read.company
      if (body.read.unit) query.unit = body.read.unit
      if (body.siteId) query.siteId = body.siteId
      const match = await deps.matchRecipient(actor.subId, query)
      const reason: ScanIssueReason = body.reason ?? match.doubt ?? 'partial_match'
      const suggestions: StoredSuggestion[] = match.suggestions.slice(0, MAX_SUGGESTIONS).map((s) => ({
        contactId: s.contactId,
        name: s.name,
        ...(s.company ? { company: s.company } : {}),
        ...(s.unit ? { unit: s.unit } : {}),
        group: s.group,
        score: s.score,
      }))
      const row: ScanIssueRow = {
        scan_issue_id: ids('sci_'),
        sub_id: actor.subId,
        package_id: body.packageId,
        reason,
        status: 'open',
        read_name: body.read.name ?? null,
        read_company: body.read.company ?? null,
        read_unit: body.read.unit ?? null,
        read_lines: body.read.lines ?? [],
        ocr_confidence: body.read.confidence ?? null,
        suggestions,
        image_id: body.imageId ?? null,
        site_id: body.siteId ?? null,
        opened_by: actor.clerk,
        opened_at: clock.now(),
        contact_id: null,
        settled_by: null,
        settled_at: null,
      }
      const opened = await inTransaction(db, async (trx) => {
        const inserted = await repo.insertIssue(trx, {
          ...row,
          read_lines: JSON.stringify(row.read_lines),
          suggestions: JSON.stringify(row.suggestions),
        })
        if (inserted) await publish(trx, row, record)
        return inserted
      })
      if (!opened) throw new AppError(SCAN_ISSUE_ERRORS.SCAN_ISSUE_OPEN, { field: 'packageId' })
      deps.onEventsCommitted?.()
      return toIssue(row, record)
    },

    async getIssue(subId: string, issueId: string): Promise<ScanIssue> {
      const row = await repo.findIssue(db, subId, issueId)
      if (!row) throw new AppError(SCAN_ISSUE_ERRORS.SCAN_ISSUE_NOT_FOUND)
      const [record] = await deps.packages.recordsByIds(subId, [row.package_id])
      return toIssue(row, record)
    },

    async listIssues(subId: string, q: ListScanIssuesQuery): Promise<{ scanIssues: ScanIssue[]; totalCount: number }> {
      const size = q.size ?? 25
      const { rows, total } = await repo.listIssues(db, subId, q.status ?? 'open', {
        offset: ((q.page ?? 1) - 1) * size,
        limit: size,
      })
      const records = await deps.packages.recordsByIds(
        subId,
        rows.map((r) => r.package_id),
      )
      const byId = new Map(records.map((r) => [r.packageId, r]))
      return { scanIssues: rows.map((r) => toIssue(r, byId.get(r.package_id))), totalCount: total }
    },

    /**
     * The clerk's choice, in one transaction: the issue claimed (only while open), then the
     * package's receiver set under its row lock, the events of both written once. Two clerks
     * settling at once: the second finds the issue settled and changes nothing.
     */
    async resolveIssue(actor: Actor, issueId: string, contactId: string): Promise<ScanIssue> {
      const row = await repo.findIssue(db, actor.subId, issueId)
      if (!row) throw new AppError(SCAN_ISSUE_ERRORS.SCAN_ISSUE_NOT_FOUND)
      const [record] = await deps.packages.recordsByIds(actor.subId, [row.package_id])
      await checkScope(actor, record, 'scanIssueId')
      // A retry of the same choice (its answer was lost) gets the settled issue; another choice is refused.
      const settledAlready = (r: ScanIssueRow) => {
        if (r.contact_id === contactId) return toIssue(r, record)
        throw new AppError(SCAN_ISSUE_ERRORS.SCAN_ISSUE_SETTLED, { field: 'scanIssueId' })
      }
      if (row.status !== 'open') return settledAlready(row)
      const claimed: { row?: ScanIssueRow } = {}
      const claim = async (trx: Trx) => {
        const settled = (claimed.row = await repo.settleIssue(trx, actor.subId, issueId, {
          contactId,
          settledBy: actor.clerk,
          settledAt: clock.now(),
        }))
        if (!settled) throw new AppError(SCAN_ISSUE_ERRORS.SCAN_ISSUE_SETTLED, { field: 'scanIssueId' })
        if (record) await publish(trx, settled, record)
      }
      try {
        await deps.packages.updatePackage(
          actor,
          row.package_id,
          { package: { receiver: { contactId } } },
          undefined,
          claim,
        )
      } catch (e) {
        if (e instanceof AppError && e.code === SCAN_ISSUE_ERRORS.SCAN_ISSUE_SETTLED) {
          const now = await repo.findIssue(db, actor.subId, issueId)
          if (now) return settledAlready(now)
        }
        // The packages domain names its own field; here the contact is the body's.
        if (e instanceof AppError && e.options.field?.startsWith('package.receiver'))
          throw new AppError(e.code, { ...e.options, field: 'contactId' })
        if (e instanceof ValidationErrors && e.items.some((i) => i.field.startsWith('package.receiver')))
          throw new ValidationErrors(e.items.map((i) => ({ ...i, field: 'contactId' })))
        throw e
      }
      if (!claimed.row) throw new Error(`scan issue ${issueId} settled without its row`)
      deps.onEventsCommitted?.()
      return toIssue(claimed.row, record)
    },
  }
}

function toIssue(r: ScanIssueRow, p: PackageRecord | undefined): ScanIssue {
  const read: ScanIssue['read'] = { lines: r.read_lines }
  if (r.read_name) read.name = r.read_name
  if (r.read_company) read.company = r.read_company
  if (r.read_unit) read.unit = r.read_unit
  if (r.ocr_confidence !== null) read.confidence = r.ocr_confidence
  const out: ScanIssue = {
    scanIssueId: r.scan_issue_id,
    packageId: r.package_id,
    reason: r.reason,
    status: r.status,
    read,
    suggestions: r.suggestions,
    openedBy: r.opened_by,
    openedAt: new Date(r.opened_at).toISOString(),
  }
  if (p?.trackingNumber) out.trackingNumber = p.trackingNumber
  if (r.image_id) out.imageId = r.image_id
  if (r.site_id) out.siteId = r.site_id
  if (r.contact_id) out.contactId = r.contact_id
  if (r.settled_by) out.settledBy = r.settled_by
  if (r.settled_at) out.settledAt = new Date(r.settled_at).toISOString()
  return out
}
