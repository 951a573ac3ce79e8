import type { PGlite } from '@electric-sql/pglite'
import { createMemoryPGlite } from '../../src/platform/db/database.js'
import { pgliteTemplateDump } from './template-db.js'

/**
 * The embedded test databases of one worker, used file after file (issue 24: a new copy of the
 * migrated template cost 1.2–1.7 s of CPU per file; emptying a used one costs about a tenth).
 *
 * A database comes back emptied to exactly what the template holds: every table truncated (its
 * identities restarted), the rows the migrations seed put back, every sequence set back, the
 * session's state discarded (advisory locks, settings, prepared statements). A file that changed
 * the schema itself (a trigger that counts writes, a table of its own, a dropped constraint) leaves
 * a database whose catalogue no longer matches the template's: it is closed, never handed out again.
 * Files that mock modules run in fresh module graphs, so each starts with an empty pool, as before.
 */

/** What a template copy holds beyond empty tables, read when the copy is made. */
interface Baseline {
  /** The schema's fingerprint (catalogue), compared after each use. */
  fingerprint: string
  /** One statement putting the copy back as the template left it. */
  reset: string
}

interface Pooled {
  pglite: PGlite
  baseline: Baseline
}

/** The migration bookkeeping stays as the template has it; everything else in `public` is the tests'. */
const KEEP = new Set(['kysely_migration', 'kysely_migration_lock'])
const DISCARD = [
  'close all',
  'select pg_advisory_unlock_all()',
  'unlisten *',
  'deallocate all',
  'discard temp',
  'discard plans',
  'discard sequences',
]
/** Idle databases kept per worker: a file rarely uses more than two at once. */
const MAX_IDLE = 2

const idle: Pooled[] = []

/** A migrated embedded database as the template has it: an idle one emptied, else a new copy. */
export async function takeMigrated(): Promise<Pooled> {
  const reused = idle.pop()
  if (reused) return reused
  const pglite = await createMemoryPGlite(await pgliteTemplateDump())
  return { pglite, baseline: await readBaseline(pglite) }
}

/** After a file is done with it (its handle closed): emptied and kept for the next file, or closed. */
export async function giveBack(used: Pooled): Promise<void> {
  try {
    if (idle.length >= MAX_IDLE) throw new Error('enough idle databases')
    // A transaction the last user left open would otherwise hold what follows.
    await used.pglite.exec('rollback')
    // DISCARD ALL but RESET ALL (PGlite's own session settings, search_path among them, would be
    // lost); a setting a file changed shows in the fingerprint. Each alone: DISCARD and CLOSE cannot
    // run inside the implicit transaction of several statements.
    for (const statement of DISCARD) await used.pglite.exec(statement)
    await used.pglite.exec(used.baseline.reset)
    if ((await fingerprint(used.pglite)) !== used.baseline.fingerprint) throw new Error('the schema was changed')
    idle.push(used)
  } catch {
    await used.pglite.close().catch(() => {})
  }
}

async function readBaseline(pglite: PGlite): Promise<Baseline> {
  const tables = (
    await pglite.query<{ name: string }>(
      `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition order by 1`,
    )
  ).rows
    .map((r) => r.name)
    .filter((name) => !KEEP.has(name))
  // The rows the migrations seed (carriers…), kept here to be put back after each truncate.
  const seeded: string[] = []
  for (const table of tables) {
    const { rows } = await pglite.query<{ json: string | null }>(
      `select json_agg(t)::text as json from public."${table}" t`,
    )
    const json = rows[0]!.json
    if (!json) continue
    const columns = (
      await pglite.query<{ name: string }>(
        `select attname as name from pg_attribute
          where attrelid = $1::regclass and attnum > 0 and not attisdropped and attgenerated = '' order by attnum`,
        [`public."${table}"`],
      )
    ).rows
      .map((r) => `"${r.name}"`)
      .join(', ')
    seeded.push(
      `insert into public."${table}" (${columns}) overriding system value
         select ${columns} from json_populate_recordset(null::public."${table}", $seed$${json}$seed$);`,
    )
  }
  const sequences = (
    await pglite.query<{ name: string; last: number; called: boolean }>(
      `select format('%I.%I', schemaname, sequencename) as name, coalesce(last_value, start_value) as last,
              last_value is not null as called
         from pg_sequences where schemaname = 'public'`,
    )
  ).rows.map((s) => `select setval('${s.name}', ${s.last}, ${s.called});`)
  const reset = [
    tables.length ? `truncate ${tables.map((t) => `public."${t}"`).join(', ')} restart identity cascade;` : '',
    ...seeded,
    ...sequences,
  ].join('\n')
  return { fingerprint: await fingerprint(pglite), reset }
}

/**
 * The catalogue of `public` (relations and their columns, constraints, triggers, functions, indexes),
 * the schemas, extensions and settings changed from their defaults, as one hash.
 */
async function fingerprint(pglite: PGlite): Promise<string> {
  const { rows } = await pglite.query<{ hash: string }>(`
    select md5(string_agg(item, ',' order by item)) as hash from (
      select format('r %s %s %s', c.relname, c.relkind,
               (select string_agg(format('%s:%s:%s', a.attname, a.atttypid, a.attnotnull), ';' order by a.attnum)
                  from pg_attribute a where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped)) as item
        from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'
      union all
      select format('c %s %s %s %s', conrelid, conname, convalidated, md5(pg_get_constraintdef(c.oid)))
        from pg_constraint c join pg_namespace n on n.oid = c.connamespace where n.nspname = 'public'
      union all
      select format('t %s %s %s', tgrelid, tgname, tgenabled) from pg_trigger where not tgisinternal
      union all
      select format('f %s %s', p.oid::regprocedure, md5(p.prosrc))
        from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname = 'public'
      union all
      select format('i %s %s', indexrelid, indisvalid) from pg_index i join pg_class c on c.oid = i.indexrelid
        join pg_namespace n on n.oid = c.relnamespace where n.nspname = 'public'
      union all
      select format('n %s', nspname) from pg_namespace
      union all
      select format('x %s %s', extname, extversion) from pg_extension
      union all
      select format('s %s %s', name, setting) from pg_settings where source not in ('default', 'override')
    ) catalogue`)
  return rows[0]!.hash
}
