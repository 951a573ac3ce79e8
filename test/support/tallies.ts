import { sql, type Kysely } from 'kysely'
import type { Database } from '../../src/platform/db/tables.js'

/** Tally rows (folded and not) that differ from counting the packages: empty when the tallies are right. */
export async function tallyDrift(db: Kysely<Database>) {
  const { rows } = await sql<{
    sub_id: string
    dim: string
    key: string
    status: string
    tallied: string | null
    counted: string | null
  }>`
    select coalesce(a.sub_id, b.sub_id) as sub_id, coalesce(a.dim, b.dim) as dim, coalesce(a.key, b.key) as key, coalesce(a.status, b.status) as status,
           a.n as tallied, b.n as counted
      from (select sub_id, dim, key, status, sum(n) as n
              from (select sub_id, dim, key, status, n from package_tallies union all select sub_id, dim, key, status, n from package_tally_deltas) u
             group by sub_id, dim, key, status having sum(n) <> 0) a
      full join (select p.sub_id, d.dim, d.key, p.current_status as status, count(*) as n
                   from packages p cross join lateral (values ('site', coalesce(p.site_id, '')), ('receiver', p.receiver_id), ('sender', p.sender_id), ('given_to', p.given_to_id)) d(dim, key)
                  where d.key is not null group by p.sub_id, d.dim, d.key, p.current_status) b
        on a.sub_id = b.sub_id and a.dim = b.dim and a.key = b.key and a.status = b.status
     where a.n is distinct from b.n`.execute(db)
  return rows
}
