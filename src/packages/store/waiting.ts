import { sql, type Expression, type SqlBool } from 'kysely'
import { NOT_WAITING } from '../model/statuses.js'

/**
 * SQL for another domain's statement (reminders): true where the package still waits at the desk, a
 * status not in NOT_WAITING and not archived, the packages domain's one definition of waiting. A
 * probe of the primary key, so a join on the caller's side reads as well.
 */
export const packageWaiting = (packageId: Expression<string>, subId: Expression<string>) =>
  sql<SqlBool>`exists (select 1 from packages p where p.package_id = ${packageId} and p.sub_id = ${subId}
    and p.current_status not in (${sql.join(NOT_WAITING.map((s) => sql.lit(s)))}) and not p.archived)`

/** packageWaiting, of a package carrying `flag` (issue 30: perishables are reminded sooner). */
export const packageWaitingFlagged = (packageId: Expression<string>, subId: Expression<string>, flag: string) =>
  sql<SqlBool>`exists (select 1 from packages p where p.package_id = ${packageId} and p.sub_id = ${subId}
    and p.flags @> array[${flag}]::text[]
    and p.current_status not in (${sql.join(NOT_WAITING.map((s) => sql.lit(s)))}) and not p.archived)`
