import { NO_MIGRATIONS, sql, type Kysely, type MigrationResultSet } from 'kysely'
import { migratorFor } from '../../src/platform/db/migrate.js'
import { migrations } from '../../src/platform/db/migrations/index.js'

/**
 * Tests name the migration they are about, never "the last one" nor a count: a migration added
 * later (by anyone, in any number range) leaves them true.
 */
export const MIGRATIONS = Object.keys(migrations)

function done({ error, results }: MigrationResultSet): string[] {
  if (error) throw error instanceof Error ? error : new Error(JSON.stringify(error))
  return (results ?? []).map((r) => `${r.direction} ${r.migrationName}`)
}

function known(name: string): number {
  const at = MIGRATIONS.indexOf(name)
  if (at < 0) throw new Error(`no migration ${name}`)
  return at
}

/** Runs the migrations up to and including `name`; those after it stay undone. */
export async function migrateUpTo(db: Kysely<any>, name: string): Promise<string[]> {
  known(name)
  return done(await migratorFor(db).migrateTo(name))
}

/** Undoes `name` and every migration after it, newest first; returns what it undid ("Down <name>"). */
export async function migrateDownThrough(db: Kysely<any>, name: string): Promise<string[]> {
  const at = known(name)
  return done(await migratorFor(db).migrateTo(at === 0 ? NO_MIGRATIONS : MIGRATIONS[at - 1]!))
}

/**
 * The schema as text, to compare before and after: tables and columns (type, null, default,
 * statistics target), constraints, indexes, triggers and functions (not an extension's) of the
 * current schema.
 */
export async function schemaOf(db: Kysely<any>): Promise<string[]> {
  const { rows } = await sql<{ line: string }>`
    select 'column ' || c.relname || '.' || a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
           || case when a.attnotnull then ' not null' else '' end
           || coalesce(' default ' || pg_get_expr(d.adbin, d.adrelid), '')
           || coalesce(' statistics ' || nullif(a.attstattarget, -1)::text, '') as line
      from pg_attribute a
      join pg_class c on c.oid = a.attrelid and c.relkind in ('r', 'p')
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
      left join pg_attrdef d on d.adrelid = a.attrelid and d.adnum = a.attnum
     where a.attnum > 0 and not a.attisdropped and c.relname not like 'kysely_%'
    union all
    select 'constraint ' || c.relname || ' ' || k.conname || ' ' || pg_get_constraintdef(k.oid)
      from pg_constraint k
      join pg_class c on c.oid = k.conrelid
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
     where c.relname not like 'kysely_%'
    union all
    select 'index ' || indexdef from pg_indexes where schemaname = current_schema() and tablename not like 'kysely_%'
    union all
    select 'trigger ' || c.relname || ' ' || pg_get_triggerdef(g.oid)
      from pg_trigger g
      join pg_class c on c.oid = g.tgrelid
      join pg_namespace n on n.oid = c.relnamespace and n.nspname = current_schema()
     where not g.tgisinternal
    union all
    select 'function ' || p.proname || '(' || pg_get_function_identity_arguments(p.oid) || ') ' || md5(p.prosrc)
      from pg_proc p
      join pg_namespace n on n.oid = p.pronamespace and n.nspname = current_schema()
     -- An extension's own functions (pg_trgm's): a down leaves an extension in place, as other schemas may use it.
     where not exists (select 1 from pg_depend e where e.classid = 'pg_proc'::regclass and e.objid = p.oid and e.deptype = 'e')
    order by 1`.execute(db)
  return rows.map((r) => r.line)
}
