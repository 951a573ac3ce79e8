import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
// The scan-issues queue (issue 27): a package received from a label photo whose recipient was not
// chosen, with why, what the label said, the best suggestions, and the photo, until a clerk settles it.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .createTable('scan_issues')
    .addColumn('scan_issue_id', 'text', (c) => c.primaryKey())
    .addColumn('sub_id', 'text', (c) => c.notNull())
    .addColumn('package_id', 'text', (c) => c.notNull())
    .addColumn('reason', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().defaultTo('open'))
    .addColumn('read_name', 'text')
    .addColumn('read_company', 'text')
    .addColumn('read_unit', 'text')
    .addColumn('read_lines', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('ocr_confidence', 'integer')
    .addColumn('suggestions', 'jsonb', (c) => c.notNull().defaultTo(sql`'[]'::jsonb`))
    .addColumn('image_id', 'text')
    .addColumn('site_id', 'text')
    .addColumn('opened_by', 'text', (c) => c.notNull())
    .addColumn('opened_at', 'timestamptz', (c) => c.notNull())
    .addColumn('contact_id', 'text')
    .addColumn('settled_by', 'text')
    .addColumn('settled_at', 'timestamptz')
    .addCheckConstraint('scan_issues_status_check', sql`status in ('open', 'settled')`)
    .addCheckConstraint(
      'scan_issues_reason_check',
      sql`reason in ('no_match', 'partial_match', 'several_matches', 'business')`,
    )
    .execute()
  // The queue, oldest first; settled ones newest first.
  await sql`create index scan_issues_queue_idx on scan_issues (sub_id, status, opened_at, scan_issue_id)`.execute(db)
  // One open issue per package: opening again while one is open is refused (409).
  await sql`create unique index scan_issues_open_package_idx on scan_issues (sub_id, package_id) where status = 'open'`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('scan_issues').execute()
}
