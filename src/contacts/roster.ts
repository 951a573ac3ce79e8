import { stringify } from 'csv-stringify/sync'
import { Readable } from 'node:stream'
import type { Db } from '../platform/db/database.js'
import { inTransaction, type Executor } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import * as repo from './store/contacts.js'
import type { ContactType } from './api/schemas.js'
import { normalizeForMatch } from './model/normalize.js'
import { guardCell, parseRoster, ROSTER_FIELDS, type ParsedRoster, type RosterRow } from './model/roster.js'
import {
  clean,
  COLUMN,
  rowErrors,
  statusOf,
  type RosterOutcome,
  type RosterReport,
  type RosterRowResult,
} from './model/roster-rules.js'
import { parseRosterXlsx } from './model/roster-xlsx.js'
import { MAX_ROSTER_ROWS } from './api/roster-schemas.js'
import { returnColumns, type DepartureHook } from './model/departure.js'
import { findByExternalIds } from './store/directory.js'

interface Plan {
  result: RosterRowResult
  insert?: repo.NewContactRow
  update?: { contactId: string; set: repo.ContactRowUpdate }
}

export interface RosterDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  /** Told of the contacts a roster deactivated, once the import committed. */
  onDeparted?: DepartureHook
}

export function createRosterOperations({ db, clock, ids, onDeparted }: RosterDeps) {
  /**
   * Each row → what importing it does. A row is the contact with its externalId (exactly), else
   * the one whose personal id it names, else the one with its email (both ignoring case), else (a
   * row with no key) the one of its name with none, else a new one; a
   * row naming two different contacts, one many match, or a repeat of an earlier row's email or
   * id is refused, so an import never merges people by accident.
   */
  async function plan(ex: Executor, subId: string, input: readonly RosterRow[]): Promise<Plan[]> {
    const rows = input.map(clean)
    const emails = [...new Set(rows.flatMap((r) => (r.email ? [r.email.toLowerCase()] : [])))]
    const pids = [...new Set(rows.flatMap((r) => (r.personalId ? [r.personalId.toLowerCase()] : [])))]
    const unkeyed = (r: RosterRow) => !r.email && !r.personalId && !r.externalId
    const names = [...new Set(rows.flatMap((r) => (r.name && unkeyed(r) ? [normalizeForMatch(r.name)] : [])))]
    const exts = [...new Set(rows.flatMap((r) => (r.externalId ? [r.externalId] : [])))]
    // Sequential: PGlite has one connection, and a transaction's statements run one at a time.
    const byEmail = await repo.findLiveByEmails(ex, subId, emails)
    const byPid = await repo.findLiveByPersonalIds(ex, subId, pids)
    const byName = (await repo.findLiveUnkeyedByMatchNames(ex, subId, names)).filter((c) => c.external_id === null)
    // externalId is unique among a subscription's live contacts: at most one owner each.
    const extOwners = new Map((await findByExternalIds(ex, subId, exts)).map((c) => [c.external_id!, c]))
    const group = (found: repo.ContactRow[], key: (c: repo.ContactRow) => string | null) => {
      const m = new Map<string, repo.ContactRow[]>()
      for (const c of found) {
        const k = key(c)?.toLowerCase()
        if (k) m.set(k, [...(m.get(k) ?? []), c])
      }
      return m
    }
    const emailOwners = group(byEmail, (c) => c.email)
    const pidOwners = group(byPid, (c) => c.personal_id)
    const nameOwners = group(byName, (c) => c.match_name)
    const firstSeen = {
      email: new Map<string, number>(),
      personalId: new Map<string, number>(),
      externalId: new Map<string, number>(),
    }
    const now = clock.now()
    return rows.map((r, i) => {
      const errors = rowErrors(r)
      for (const f of ['email', 'personalId', 'externalId'] as const) {
        const k = f === 'externalId' ? r[f] : r[f]?.toLowerCase()
        if (!k) continue
        const earlier = firstSeen[f].get(k)
        if (earlier !== undefined) errors.push({ field: f, message: `Same ${f} as row ${earlier + 1}.` })
        else firstSeen[f].set(k, i)
      }
      const byId = r.personalId ? (pidOwners.get(r.personalId.toLowerCase()) ?? []) : []
      const byMail = r.email ? (emailOwners.get(r.email.toLowerCase()) ?? []) : []
      if (byId.length > 1)
        errors.push({ field: 'personalId', message: `${byId.length} contacts have this id: settle them first.` })
      if (byMail.length > 1)
        errors.push({ field: 'email', message: `${byMail.length} contacts have this email: settle them first.` })
      // A row with neither key is the one contact of that name that has neither either, so a
      // re-import of a roster without emails does not duplicate it.
      const byNameOnly = unkeyed(r) && r.name ? (nameOwners.get(normalizeForMatch(r.name)) ?? []) : []
      if (byNameOnly.length > 1)
        errors.push({ field: 'name', message: `${byNameOnly.length} contacts have this name and no email or id.` })
      const byExt = r.externalId ? extOwners.get(r.externalId) : undefined
      const target = byExt ?? byId[0] ?? byMail[0] ?? byNameOnly[0]
      if (byId[0] && target && byId[0].contact_id !== target.contact_id)
        errors.push({ field: 'personalId', message: `This id belongs to another contact (${byId[0].name}).` })
      if (byMail[0] && target && byMail[0].contact_id !== target.contact_id)
        errors.push({ field: 'email', message: `This email belongs to another contact (${byMail[0].name}).` })
      if (errors.length > 0) return { result: { outcome: 'invalid', errors } }
      if (!target) {
        const contactId = ids('con_')
        const name = r.name as string
        return {
          result: { outcome: 'created', contactId, errors: [] },
          insert: {
            contact_id: contactId,
            sub_id: subId,
            contact_type: (r.contactType as ContactType | undefined) ?? 'RECEIVER',
            name,
            company: r.company ?? null,
            email: r.email ?? null,
            phone: r.phone ?? null,
            personal_id: r.personalId ?? null,
            location_site_id: null,
            mail_stop_site_id: null,
            status: statusOf(r.status) ?? 'active',
            notify: true,
            language: r.language ?? null,
            external_id: r.externalId ?? null,
            unit: r.unit ?? null,
            match_name: normalizeForMatch(name),
            match_company: r.company ? normalizeForMatch(r.company) : null,
            source: 'csv',
            created_at: now,
            updated_at: now,
          },
        }
      }
      const set: repo.ContactRowUpdate = {}
      const changes: string[] = []
      for (const [f, col] of Object.entries(COLUMN) as Array<[keyof typeof COLUMN, keyof repo.ContactRow]>) {
        const v = r[f]
        const stored = target[col]
        const same = f === 'personalId' ? v?.toLowerCase() === String(stored).toLowerCase() : v === stored
        if (v !== undefined && !same) {
          Object.assign(set, { [col]: v })
          changes.push(f)
        }
      }
      if (r.contactType !== undefined && r.contactType !== target.contact_type) {
        set.contact_type = r.contactType as ContactType
        changes.push('contactType')
      }
      const status = statusOf(r.status)
      if (status && status !== target.status) {
        set.status = status
        changes.push('status')
      }
      const contactId = target.contact_id
      if (changes.length === 0) return { result: { outcome: 'unchanged', contactId, errors: [] } }
      // Only a row that says so deactivates: a contact the file leaves out is left as it is.
      const outcome = status === 'inactive' && changes.includes('status') ? 'deactivated' : 'updated'
      if (set.name !== undefined) set.match_name = normalizeForMatch(set.name)
      if (set.company !== undefined) set.match_company = set.company ? normalizeForMatch(set.company) : null
      Object.assign(set, returnColumns(target, set, now))
      set.updated_at = now
      return { result: { outcome, contactId, changes, errors: [] }, update: { contactId, set } }
    })
  }

  const report = (plans: Plan[]): RosterReport => {
    const count = (o: RosterOutcome) => plans.filter((p) => p.result.outcome === o).length
    return {
      created: count('created'),
      updated: count('updated'),
      deactivated: count('deactivated'),
      unchanged: count('unchanged'),
      invalid: count('invalid'),
      rows: plans.map((p) => p.result),
    }
  }

  return {
    /** What importing `rows` would do, row by row; writes nothing. */
    async checkRoster(subId: string, rows: readonly RosterRow[]): Promise<RosterReport> {
      return report(await plan(db, subId, rows))
    },

    /** A roster file (CSV text, or XLSX bytes) read and checked; writes nothing. */
    async readRoster(
      subId: string,
      file: { csv: string } | { xlsx: Buffer },
    ): Promise<Omit<ParsedRoster, 'rows'> & { rows: Array<{ line: number; row: RosterRow }>; report: RosterReport }> {
      let parsed: ParsedRoster
      try {
        parsed = 'csv' in file ? parseRoster(file.csv) : await parseRosterXlsx(file.xlsx, MAX_ROSTER_ROWS)
      } catch (err) {
        const field = 'csv' in file ? 'csv' : 'xlsx'
        throw new ValidationErrors([
          { field, description: `Not a readable ${field.toUpperCase()} file: ${(err as Error).message}` },
        ])
      }
      return {
        ...parsed,
        report: await plan(
          db,
          subId,
          parsed.rows.map((r) => r.row),
        ).then(report),
      }
    },

    /**
     * All rows or none: any invalid row is a 400 naming `rows[i].field`, and nothing is written.
     * Unchanged rows are not written at all (a re-import of the same file leaves every
     * `updated_at` as it was).
     */
    async importRoster(subId: string, rows: readonly RosterRow[]): Promise<RosterReport> {
      const done = await inTransaction(db, async (trx) => {
        const plans = await plan(trx, subId, rows)
        const bad = plans.flatMap((p, i) =>
          p.result.errors.map((e) => ({ field: `rows[${i}].${e.field}`, description: e.message })),
        )
        if (bad.length > 0) throw new ValidationErrors(bad)
        await repo.insertContacts(
          trx,
          plans.flatMap((p) => (p.insert ? [p.insert] : [])),
        )
        for (const p of plans) if (p.update) await repo.updateContact(trx, subId, p.update.contactId, p.update.set)
        return report(plans)
      })
      const left = done.rows.flatMap((r) => (r.outcome === 'deactivated' && r.contactId ? [r.contactId] : []))
      if (left.length > 0) await onDeparted?.(subId, left)
      return done
    },

    /** Every live contact as CSV with the import's own header, so the file re-imports unchanged. */
    exportRoster(subId: string): Readable {
      const header = stringify([[...ROSTER_FIELDS]], { record_delimiter: 'windows' })
      async function* pages() {
        yield header
        let after: string | null = null
        for (;;) {
          const page = await repo.pageLiveContacts(db, subId, after, 1000)
          if (page.length === 0) return
          after = page[page.length - 1]!.contact_id
          const cells = page.map((c) =>
            [
              c.name,
              c.email,
              c.company,
              c.phone,
              c.personal_id,
              c.contact_type,
              c.language,
              c.external_id,
              c.unit,
              c.status,
            ].map((v) => guardCell(v ?? '')),
          )
          yield stringify(cells, { record_delimiter: 'windows', quoted_match: /[\r\n]/ })
        }
      }
      return Readable.from(pages())
    },
  }
}
