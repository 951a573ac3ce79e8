import { sql, type Insertable } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { ScanIssueStatus } from '../model/issue.js'
import type { ScanIssueRow, ScanIssueTable } from './tables.js'

const COLUMNS = [
  'scan_issue_id',
  'sub_id',
  'package_id',
  'reason',
  'status',
  'read_name',
  'read_company',
  'read_unit',
  'read_lines',
  'ocr_confidence',
  'suggestions',
  'image_id',
  'site_id',
  'opened_by',
  'opened_at',
  'contact_id',
  'settled_by',
  'settled_at',
] as const

/** False when the package already has an open issue (the partial unique index). */
export async function insertIssue(trx: Executor, row: Insertable<ScanIssueTable>): Promise<boolean> {
  const done = await trx
    .insertInto('scan_issues')
    .values(row)
    // The partial index's predicate as a literal: PostgreSQL infers the arbiter index from it, and
    // a bound parameter there fails the inference once the statement is prepared generically.
    .onConflict((oc) => oc.columns(['sub_id', 'package_id']).where('status', '=', sql.lit('open')).doNothing())
    .executeTakeFirst()
  return Number(done.numInsertedOrUpdatedRows ?? 0) === 1
}

export async function findIssue(db: Executor, subId: string, issueId: string): Promise<ScanIssueRow | undefined> {
  return db
    .selectFrom('scan_issues')
    .select(COLUMNS)
    .where('sub_id', '=', subId)
    .where('scan_issue_id', '=', issueId)
    .executeTakeFirst()
}

/** Open issues oldest first (a queue); settled ones newest first. */
export async function listIssues(
  db: Executor,
  subId: string,
  status: ScanIssueStatus,
  page: { offset: number; limit: number },
): Promise<{ rows: ScanIssueRow[]; total: number }> {
  const base = db.selectFrom('scan_issues').where('sub_id', '=', subId).where('status', '=', status)
  const order = status === 'open' ? 'asc' : 'desc'
  const [rows, count] = await Promise.all([
    base
      .select(COLUMNS)
      .orderBy('opened_at', order)
      .orderBy('scan_issue_id', order)
      .offset(page.offset)
      .limit(page.limit)
      .execute(),
    base.select((eb) => eb.fn.countAll<string>().as('n')).executeTakeFirstOrThrow(),
  ])
  return { rows, total: Number(count.n) }
}

/** Settles an open issue; false when it was settled meanwhile (another clerk). */
export async function settleIssue(
  trx: Executor,
  subId: string,
  issueId: string,
  set: { contactId: string; settledBy: string; settledAt: Date },
): Promise<ScanIssueRow | undefined> {
  return trx
    .updateTable('scan_issues')
    .set({ status: 'settled', contact_id: set.contactId, settled_by: set.settledBy, settled_at: set.settledAt })
    .where('sub_id', '=', subId)
    .where('scan_issue_id', '=', issueId)
    .where('status', '=', 'open')
    .returning(COLUMNS)
    .executeTakeFirst()
}
