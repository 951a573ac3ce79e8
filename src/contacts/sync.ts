import type { Db } from '../platform/db/database.js'
import { inTransaction, type Trx } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { personProblems, type DirectoryPerson, type DirectorySource } from './directory.js'
import { normalizeForMatch } from './model/normalize.js'
import { departed, returnColumns } from './model/departure.js'
import type { DepartureHook } from './model/departure.js'
import * as repo from './store/directory.js'

export interface SyncReport {
  seen: number
  created: number
  updated: number
  deactivated: number
  unchanged: number
  invalid: number
  /** The first problems, for the admin to fix in the directory (`row`: the entry's externalId). */
  errors: Array<{ externalId: string; field: string; description: string }>
  /** `proceed` said no: the counts are what the run would have done; nothing was written. */
  held?: true
}

/** What a sync is about to do, for its caller to allow (the LDAP mass-deactivation guard). */
export interface SyncPlan {
  /** Entries usable as people (an id, a name). */
  valid: number
  deactivations: number
  /** Active contacts of the source before the run. */
  active: number
}

const MAX_ERRORS = 50

/** The mapped columns a directory entry sets, compared with what is stored to write only changes. */
function wanted(p: DirectoryPerson): Record<string, unknown> {
  const out: Record<string, unknown> = {
    name: p.name.trim(),
    external_id: p.externalId ?? null,
    status: p.active ? 'active' : 'inactive',
  }
  for (const [k, col] of [
    ['email', 'email'],
    ['phone', 'phone'],
    ['company', 'company'],
    ['personalId', 'personal_id'],
    ['unit', 'unit'],
  ] as const)
    if (p[k] !== undefined) out[col] = p[k]
  return out
}

/**
 * A whole directory's people made the contacts of `source` (LDAP): matched by externalId (any
 * contact that has it), then by email among contacts with no externalId (a manual contact is
 * adopted); changed ones updated, new ones created, and contacts of this source that the
 * directory no longer lists deactivated (never deleted). An entry whose mapped fields equal the
 * contact's writes nothing, so an unchanged re-sync writes nothing at all.
 */
export function createSyncOperations(deps: { db: Db; clock: Clock; ids: IdGenerator; onDeparted: DepartureHook }) {
  const { db, clock, ids } = deps
  return {
    async syncDirectory(
      subId: string,
      source: DirectorySource,
      people: readonly DirectoryPerson[],
      opts: {
        dryRun?: boolean
        proceed?: (plan: SyncPlan) => boolean
        /**
         * The caller's fencing check, the write transaction's first statement: it throws when the
         * caller may no longer write (an LDAP run that lost its lease), and the sync writes nothing.
         */
        fence?: (trx: Trx) => Promise<void>
      } = {},
    ): Promise<SyncReport> {
      let report = emptyReport(people.length)
      const at = clock.now()
      let gone: string[] = []
      await inTransaction(db, async (trx) => {
        // A transaction retried (a deadlock on PostgreSQL) runs this again: it counts afresh.
        report = emptyReport(people.length)
        gone = []
        await opts.fence?.(trx)
        const externalIds = people.flatMap((p) => (p.externalId ? [p.externalId] : []))
        const current = await repo.syncCandidates(trx, subId, source, externalIds)
        const byExternal = new Map(current.filter((c) => c.external_id).map((c) => [c.external_id!, c]))
        // By email: contacts without an id, and this directory's own whose id it no longer lists (an
        // entry deleted and created again gets a new entryUUID: it is the same person).
        const listed = new Set(externalIds)
        const emails = new Map<string, repo.DirectoryRow>()
        for (const c of current)
          if (c.email && (!c.external_id || (c.source === source && !listed.has(c.external_id))))
            emails.set(c.email.toLowerCase(), c)
        const kept = new Set<string>()
        const inserts: Array<Record<string, unknown>> = []
        const updates: Array<{ c: repo.DirectoryRow; set: Record<string, unknown> }> = []
        const seenIds = new Set<string>()
        for (const p of people) {
          const problems = personProblems(p)
          if (!p.externalId) problems.push({ field: 'externalId', description: 'The entry has no id attribute.' })
          else if (seenIds.has(p.externalId)) problems.push({ field: 'externalId', description: 'Listed twice.' })
          if (problems.length > 0) {
            report.invalid++
            for (const e of problems)
              if (report.errors.length < MAX_ERRORS) report.errors.push({ externalId: p.externalId ?? '', ...e })
            // An invalid entry is still in the directory: its contact is not deactivated.
            const c = p.externalId ? byExternal.get(p.externalId) : undefined
            if (c) kept.add(c.contact_id)
            continue
          }
          seenIds.add(p.externalId!)
          const c = byExternal.get(p.externalId!) ?? (p.email ? emails.get(p.email.toLowerCase()) : undefined)
          const cols = wanted(p)
          if (!c) {
            report.created++
            inserts.push({
              contact_id: ids('con_'),
              sub_id: subId,
              contact_type: 'RECEIVER',
              company: null,
              email: null,
              phone: null,
              personal_id: null,
              location_site_id: null,
              mail_stop_site_id: null,
              language: null,
              notify: true,
              ...cols,
              match_name: normalizeForMatch(p.name),
              match_company: p.company ? normalizeForMatch(p.company) : null,
              source,
              created_at: at,
              updated_at: at,
            })
            continue
          }
          kept.add(c.contact_id)
          const changed = Object.entries(cols).filter(([k, v]) => (c as Record<string, unknown>)[k] !== v)
          if (changed.length === 0 && c.source === source) {
            report.unchanged++
            continue
          }
          report.updated++
          const set: Record<string, unknown> = Object.fromEntries(changed)
          if (set.name !== undefined) set.match_name = normalizeForMatch(set.name as string)
          if (set.company !== undefined)
            set.match_company = set.company ? normalizeForMatch(set.company as string) : null
          updates.push({ c, set })
        }
        const active = current.filter((c) => c.source === source && c.status === 'active')
        const leavers = active.filter((c) => !kept.has(c.contact_id))
        report.deactivated = leavers.length
        // Asked before anything is written: a refused run writes nothing at all.
        if (
          opts.proceed &&
          !opts.proceed({ valid: seenIds.size, deactivations: leavers.length, active: active.length })
        )
          report.held = true
        if (opts.dryRun || report.held) return
        for (const { c, set } of updates) {
          await repo.updateDirectoryContact(trx, subId, c.contact_id, {
            ...set,
            ...returnColumns(c, set, at),
            source,
            updated_at: at,
          })
          if (departed(c, set, at)) gone.push(c.contact_id)
        }
        await repo.insertDirectoryContacts(trx, inserts)
        for (const c of leavers) {
          await repo.updateDirectoryContact(trx, subId, c.contact_id, { status: 'inactive', updated_at: at })
          gone.push(c.contact_id)
        }
      })
      if (gone.length > 0) await deps.onDeparted(subId, gone)
      return report
    },
  }
}

const emptyReport = (seen: number): SyncReport => ({
  seen,
  created: 0,
  updated: 0,
  deactivated: 0,
  unchanged: 0,
  invalid: 0,
  errors: [],
})
