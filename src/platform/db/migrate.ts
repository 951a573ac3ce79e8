import type { Kysely } from 'kysely'
import { Migrator, type MigrationResultSet } from 'kysely'
import { migrations } from './migrations/index.js'

export function migratorFor(db: Kysely<any>): Migrator {
  return new Migrator({ db, provider: { getMigrations: async () => migrations } })
}

/** Brings the schema up to date. Kysely takes a lock, so concurrent boots do not race. */
export async function migrateToLatest(db: Kysely<any>): Promise<string[]> {
  return unwrap(await migratorFor(db).migrateToLatest())
}

export async function migrateDown(db: Kysely<any>): Promise<string[]> {
  return unwrap(await migratorFor(db).migrateDown())
}

function unwrap({ error, results }: MigrationResultSet): string[] {
  // Kysely hands on whatever the migration threw; a non-Error is shown as String() shows it.
  // eslint-disable-next-line @typescript-eslint/no-base-to-string
  if (error) throw error instanceof Error ? error : new Error(String(error))
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => `${r.direction} ${r.migrationName}`)
}
