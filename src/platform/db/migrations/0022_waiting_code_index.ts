import { sql, type Kysely } from 'kysely'

// Frozen once landed: never edit, add a new numbered migration instead.
//
// A receiver's current pickup code, looked up by every add and every update that makes a package
// wait (packages/store/packages.ts CODE_CHOICE): the newest waiting package of that receiver that has a code.
// Without this index the lookup read every package the receiver ever had: adds for one busy
// recipient went from 1,874 to 229 a second. The predicate is the repo's, statuses spelled out
// (NOT_WAITING as it was when this was written), so the planner can use it.
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`create index packages_waiting_code_idx on packages (sub_id, receiver_id, created_at desc)
    where pickup_code is not null and not archived
      and current_status not in ('DELIVERED', 'PICKED_UP', 'RETURNED_TO_SENDER', 'ARCHIVED', 'IN_TRANSIT')`.execute(db)
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await sql`drop index if exists packages_waiting_code_idx`.execute(db)
}
