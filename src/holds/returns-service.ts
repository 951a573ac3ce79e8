import { isOneOf, NOT_WAITING, withinScope, type Actor, type PackagesService } from '../packages/index.js'
import type { SitesService } from '../sites/index.js'
import type { Db } from '../platform/db/database.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, invalid } from '../platform/kit/errors.js'
import { HOLD_ERRORS } from './model/errors.js'
import { effectiveDeadline } from './model/deadline.js'
import * as repo from './store/returns.js'
import type { ProposalRow } from './store/tables.js'

const DAY_MS = 86_400_000

export interface ReturnProposal {
  proposalId: string
  packageId: string
  trackingNumber: string
  currentStatus: string
  receiver?: { contactId: string; name: string }
  inboundSiteId: string
  siteName?: string
  receivedAt: string
  deadlineDays: number
  proposedAt: string
  shownFrom: string
}

export interface ReturnsDeps {
  db: Db
  clock: Clock
  sites: Pick<SitesService, 'getInfos'>
  packages: Pick<PackagesService, 'rowById' | 'updatePackage' | 'recordsByIds' | 'getDetailed'>
}

export type ReturnsService = ReturnType<typeof createReturnsService>

/**
 * Forwards and returns to sender (issue 30.2). Both are changes through the packages domain's
 * update, so each is one activity (who, when, where, and the address or reason in its comment)
 * and its events in the package's own commit.
 */
export function createReturnsService(deps: ReturnsDeps) {
  const { db, clock, sites, packages } = deps

  async function liveSite(subId: string, siteId: string, field: string) {
    const site = (await sites.getInfos(subId, [siteId])).get(siteId)
    if (!site || site.deleted) throw invalid(field, `No inbound site ${siteId} in this subscription.`)
    return site
  }

  /** The package as it is, refused unless it waits at a site (a forward or return of it makes sense). */
  async function waitingRow(subId: string, packageId: string) {
    const row = await packages.rowById(subId, packageId)
    if (!row) throw new AppError('PACKAGE_NOT_FOUND')
    if (row.archived || isOneOf(NOT_WAITING, row.current_status)) throw new AppError(HOLD_ERRORS.PACKAGE_NOT_WAITING)
    return row
  }

  async function proposalOf(subId: string, proposalId: string): Promise<ProposalRow> {
    const p = await repo.findProposal(db, subId, proposalId)
    if (!p) throw new AppError(HOLD_ERRORS.PROPOSAL_NOT_FOUND)
    if (p.status !== 'open') throw new AppError(HOLD_ERRORS.PROPOSAL_DECIDED)
    return p
  }

  const noteOf = (head: string, comment: string | undefined) => (comment?.trim() ? `${head} — ${comment.trim()}` : head)

  return {
    /** A site's own return deadline and the one in force there (its own, else its nearest ancestor's). */
    async getDeadline(subId: string, siteId: string) {
      const site = (await sites.getInfos(subId, [siteId])).get(siteId)
      if (!site || site.deleted) throw new AppError('SITE_NOT_FOUND')
      const own = await repo.deadlinesOf(db, subId)
      const eff = effectiveDeadline(site, own)
      return {
        inboundSiteId: siteId,
        returnAfterDays: own.get(siteId) ?? null,
        ...(eff ? { effective: { returnAfterDays: eff.days, inboundSiteId: eff.fromSiteId } } : {}),
      }
    },

    async setDeadline(subId: string, siteId: string, days: number | null) {
      const site = (await sites.getInfos(subId, [siteId])).get(siteId)
      if (!site || site.deleted) throw new AppError('SITE_NOT_FOUND')
      await repo.setDeadline(db, subId, siteId, days, clock.now())
      return this.getDeadline(subId, siteId)
    },

    /**
     * Forwards a waiting parcel: to another site of the subscription (it waits there now; a parcel
     * in a locker leaves it and is RECEIVED there, its shelf cleared), or to an address outside
     * (status FORWARDED: its wait ends).
     */
    async forward(
      actor: Actor,
      packageId: string,
      body: { inboundSiteId?: string; address?: string; comment?: string },
    ) {
      const address = body.address?.trim()
      if (body.inboundSiteId === undefined && !address)
        throw invalid('inboundSiteId', 'Give inboundSiteId (another site) or address (outside the subscription).')
      if (body.inboundSiteId !== undefined && body.address !== undefined)
        throw invalid('address', 'Give inboundSiteId or address, not both.')
      const row = await waitingRow(actor.subId, packageId)
      if (body.inboundSiteId !== undefined) {
        const site = await liveSite(actor.subId, body.inboundSiteId, 'inboundSiteId')
        if (site.status !== 'active') throw invalid('inboundSiteId', `Inbound site ${site.inboundSiteId} is inactive.`)
        if (site.inboundSiteId === row.site_id) throw invalid('inboundSiteId', 'The package is already at this site.')
        if (actor.siteScope !== undefined && !withinScope(actor.siteScope, site))
          throw invalid('inboundSiteId', `Inbound site ${site.inboundSiteId} is outside the sites this user works at.`)
        await packages.updatePackage(actor, packageId, {
          package: { packageLocation: null },
          lastActivity: {
            status: row.current_status === 'IN_LOCKER' ? 'RECEIVED' : (row.current_status as 'RECEIVED'),
            location: { inboundSiteId: site.inboundSiteId },
            comment: noteOf(`Forwarded to ${site.locationHierarchy.replace(/\| /g, ' › ')}`, body.comment),
          },
        })
      } else {
        await packages.updatePackage(actor, packageId, {
          package: {},
          lastActivity: { status: 'FORWARDED', comment: noteOf(`Forwarded to ${address}`, body.comment) },
        })
      }
      return packages.getDetailed(actor.subId, packageId)
    },

    /** The open proposals listed now (an extended one from its extension's end), oldest arrival first. */
    async listProposals(
      subId: string,
      q: { inboundSiteId?: string; skip: number; limit: number },
    ): Promise<{ proposals: ReturnProposal[]; totalCount: number }> {
      const { rows, total } = await repo.openProposals(db, subId, {
        now: clock.now(),
        siteIds: q.inboundSiteId !== undefined ? [q.inboundSiteId] : undefined,
        skip: q.skip,
        limit: q.limit,
      })
      const records = new Map(
        (
          await packages.recordsByIds(
            subId,
            rows.map((r) => r.package_id),
          )
        ).map((r) => [r.packageId, r]),
      )
      const proposals: ReturnProposal[] = []
      for (const r of rows) {
        const rec = records.get(r.package_id)
        if (!rec) continue
        const receiver = rec.receiver as { contactId?: string; name?: string } | null | undefined
        const at = rec.currentLocation as { inboundSiteId?: string; name?: string } | null | undefined
        proposals.push({
          proposalId: r.proposal_id,
          packageId: r.package_id,
          trackingNumber: rec.trackingNumber,
          currentStatus: rec.currentStatus,
          ...(receiver?.contactId ? { receiver: { contactId: receiver.contactId, name: receiver.name ?? '' } } : {}),
          inboundSiteId: at?.inboundSiteId ?? r.site_id,
          ...(at?.name ? { siteName: at.name } : {}),
          receivedAt: new Date(r.received_at).toISOString(),
          deadlineDays: r.deadline_days,
          proposedAt: new Date(r.proposed_at).toISOString(),
          shownFrom: new Date(r.shown_from).toISOString(),
        })
      }
      return { proposals, totalCount: total }
    },

    /**
     * Confirms a proposal: the parcel is RETURNED_TO_SENDER (an activity, the ReturnToSender event).
     * The proposal is claimed in the update's own transaction, so two clerks confirming at once
     * return it once and the second is told it was decided.
     */
    async confirmProposal(actor: Actor, proposalId: string, comment?: string) {
      const p = await proposalOf(actor.subId, proposalId)
      await waitingRow(actor.subId, p.package_id)
      await packages.updatePackage(
        actor,
        p.package_id,
        {
          package: {},
          lastActivity: {
            status: 'RETURNED_TO_SENDER',
            comment: noteOf(`Returned to sender: not collected within ${p.deadline_days} days`, comment),
          },
        },
        undefined,
        async (trx) => {
          if (!(await repo.decideProposal(trx, actor.subId, proposalId, 'returned', actor.clerk, clock.now())))
            throw new AppError(HOLD_ERRORS.PROPOSAL_DECIDED)
        },
      )
      return packages.getDetailed(actor.subId, p.package_id)
    },

    /** Dismisses a proposal: the parcel keeps waiting and is not proposed again. */
    async dismissProposal(actor: Actor, proposalId: string): Promise<void> {
      await proposalOf(actor.subId, proposalId)
      if (!(await repo.decideProposal(db, actor.subId, proposalId, 'dismissed', actor.clerk, clock.now())))
        throw new AppError(HOLD_ERRORS.PROPOSAL_DECIDED)
    },

    /** Extends a proposal: it leaves the list for `days` days, then comes back. */
    async extendProposal(actor: Actor, proposalId: string, days: number): Promise<{ shownFrom: string }> {
      await proposalOf(actor.subId, proposalId)
      const until = new Date(clock.now().getTime() + days * DAY_MS)
      if (!(await repo.extendProposal(db, actor.subId, proposalId, until)))
        throw new AppError(HOLD_ERRORS.PROPOSAL_DECIDED)
      return { shownFrom: until.toISOString() }
    },

    /** For other domains (the exceptions list): the open return proposals of a subscription. */
    openReturnProposals: (subId: string, q: { siteIds?: string[]; skip: number; limit: number }) =>
      repo.openProposals(db, subId, { now: clock.now(), ...q }),
  }
}
