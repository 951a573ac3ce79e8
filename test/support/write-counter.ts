import { sql, type Kysely } from 'kysely'

/**
 * Counts every row written (inserted, updated, deleted) to every table of the database, per table,
 * with a row trigger on each: the same on PGlite (which keeps no pg_stat_user_tables counts) and on
 * PostgreSQL (where the statistics arrive up to a second late), and exact.
 */
export async function countWrites(db: Kysely<any>) {
  await sql`create table if not exists test_row_writes (table_name text not null, op text not null)`.execute(db)
  await sql`
    create or replace function test_count_write() returns trigger language plpgsql as $$
    begin
      insert into test_row_writes values (tg_table_name, tg_op);
      return null;
    end $$`.execute(db)
  const { rows } = await sql<{ tablename: string }>`
    select tablename from pg_tables where schemaname = current_schema() and tablename <> 'test_row_writes'`.execute(db)
  for (const { tablename } of rows)
    await sql`create or replace trigger test_count_writes after insert or update or delete on ${sql.id(tablename)}
      for each row execute function test_count_write()`.execute(db)
  return {
    /** Rows written per table since the last reset (tables without a write are absent). */
    async perTable(): Promise<Record<string, number>> {
      const counted = await sql<{ table_name: string; n: number }>`
        select table_name, count(*)::int as n from test_row_writes group by table_name`.execute(db)
      return Object.fromEntries(counted.rows.map((r) => [r.table_name, Number(r.n)]))
    },
    async reset(): Promise<void> {
      await sql`delete from test_row_writes`.execute(db)
    },
  }
}
