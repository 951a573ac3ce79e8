import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// Finer statistics for the columns that tracking-number and package-id searches match with LIKE.
// PostgreSQL estimates a LIKE by testing the pattern against the histogram's bounds: with the
// default 100 bounds, a fragment that happens to match one bound is estimated at 1 % of the table
// (1,000 rows of 100,000, where the truth is one or two), and the page query then walks the
// newest-first index filtering every row instead of reading the fragment's own index: a whole
// subscription read for one package (seen in CI, where ANALYZE's sample decides which numbers are
// bounds). With 1,000 bounds one match weighs 0.1 %, which keeps the search's index cheaper.
//
// The targets apply from the next ANALYZE (autovacuum's, or the one `mailroom seed` runs), not
// here: the migrations run in one transaction, and an ANALYZE inside the transaction that altered
// an index still sees the index column's old target.
const TARGET = 1000

// Column 2 of each index is reverse(…), the expression `ends` searches match.
const COLUMNS = [
  sql`alter table packages alter column tracking_number`,
  sql`alter table packages alter column package_id`,
  sql`alter index packages_tn_suffix_idx alter column 2`,
  sql`alter index packages_id_suffix_idx alter column 2`,
]

export async function up(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await sql`${column} set statistics ${sql.raw(String(TARGET))}`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const column of COLUMNS) await sql`${column} set statistics -1`.execute(db)
}
