import { PGlite } from '@electric-sql/pglite'
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { Kysely } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import { createHash, randomBytes } from 'node:crypto'
import { readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { openDatabase } from '../../src/platform/db/database.js'
import { migrateToLatest } from '../../src/platform/db/migrate.js'

/**
 * The migrated schema, made once and copied for each test file (issue 24: 79 files spent 4.3 s
 * each booting a database and running every migration). Its name carries a hash of the migrations'
 * sources (and of PGlite's version, whose data directory format the PGlite copy is in), so a branch
 * that adds or changes a migration gets its own template, and a stale one is never used. Both kinds
 * are made under a name of their own and renamed into place whole: several runs (the machine's
 * other worktrees, CI) may make the same one at once, and an interrupted one leaves no half.
 */
const MIGRATIONS_DIR = path.resolve(import.meta.dirname, '../../src/platform/db/migrations')

function templateHash(): string {
  const hash = createHash('sha256')
  const pgliteJson = path.resolve(import.meta.dirname, '../../node_modules/@electric-sql/pglite/package.json')
  hash.update(String((JSON.parse(readFileSync(pgliteJson, 'utf8')) as { version: string }).version))
  for (const file of readdirSync(MIGRATIONS_DIR).sort()) {
    hash.update(`\0${file}\0`).update(readFileSync(path.join(MIGRATIONS_DIR, file)))
  }
  return hash.digest('hex').slice(0, 12)
}

let pgliteTemplate: Promise<Blob> | undefined

/** PGlite: the data directory of a migrated database, dumped to a tarball in the temp dir. */
export function pgliteTemplateDump(): Promise<Blob> {
  return (pgliteTemplate ??= (async () => {
    // "-t1": template1 alone (below); a dump made before that change is not this one.
    const file = path.join(tmpdir(), `mailroom-template-${templateHash()}-t1.tar`)
    try {
      return new Blob([readFileSync(file)])
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
    }
    // The same extensions as openDatabase's: the dumped catalog names them.
    const pglite = await PGlite.create({ extensions: { pg_trgm, btree_gin } })
    try {
      await migrateToLatest(new Kysely<unknown>({ dialect: new PGliteDialect(pglite) }))
      // PGlite serves template1; initdb's two other databases are half of the dump, and every test
      // file's copy loaded them for nothing (about 0.4 s of CPU each). A checkpoint leaves the least log.
      await pglite.exec('DROP DATABASE postgres')
      await pglite.exec('ALTER DATABASE template0 IS_TEMPLATE false')
      await pglite.exec('DROP DATABASE template0')
      await pglite.exec('CHECKPOINT')
      // Uncompressed: loading it is then a copy (gzip saved nothing measurable in load time).
      const dump = await pglite.dumpDataDir('none')
      const staging = `${file}.${process.pid}-${randomBytes(4).toString('hex')}`
      writeFileSync(staging, Buffer.from(await dump.arrayBuffer()))
      renameSync(staging, file)
      return dump
    } finally {
      await pglite.close()
    }
  })())
}

const templates = new Map<string, Promise<string>>()

/**
 * PostgreSQL: `mailroom_template_<hash>` on the server of `adminUrl`, made if missing. It refuses
 * connections (ALLOW_CONNECTIONS false): CREATE DATABASE … TEMPLATE fails while anyone is connected
 * to the template, and nobody has a reason to be.
 */
export function postgresTemplate(adminUrl: string): Promise<string> {
  let made = templates.get(adminUrl)
  if (!made) templates.set(adminUrl, (made = makePostgresTemplate(adminUrl)))
  return made
}

async function makePostgresTemplate(adminUrl: string): Promise<string> {
  const hash = templateHash()
  const name = `mailroom_template_${hash}`
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    const exists = async () =>
      (await admin.query('select 1 from pg_database where datname = $1', [name])).rowCount === 1
    if (await exists()) return name
    // One maker at a time on this server; the others find it made when they get the lock.
    const lock = `select pg_advisory_lock(hashtext('mailroom_template'))`
    await admin.query(lock)
    try {
      if (await exists()) return name
      const staging = `mailroom_tb_${hash}_${randomBytes(4).toString('hex')}`
      await admin.query(`create database ${staging}`)
      try {
        const url = new URL(adminUrl)
        url.pathname = `/${staging}`
        const handle = await openDatabase({ kind: 'postgres', url: url.toString(), poolSize: 1 })
        try {
          await migrateToLatest(handle.db)
        } finally {
          await handle.close()
        }
        await admin.query(`alter database ${staging} rename to ${name}`)
      } catch (e) {
        await admin.query(`drop database if exists ${staging} with (force)`)
        throw e
      }
      await admin.query(`alter database ${name} allow_connections false`)
      return name
    } finally {
      await admin.query(`select pg_advisory_unlock(hashtext('mailroom_template'))`)
    }
  } finally {
    await admin.end()
  }
}

/** A new database `name` on the server of `adminUrl`, a copy of the template. */
export async function cloneTemplate(adminUrl: string, name: string): Promise<void> {
  const template = await postgresTemplate(adminUrl)
  const admin = new pg.Client({ connectionString: adminUrl })
  await admin.connect()
  try {
    for (let attempt = 1; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${template}`)
        return
      } catch (e) {
        // 55006 object_in_use: another session was on the template a moment (a superuser's psql, say).
        if ((e as { code?: string }).code !== '55006' || attempt >= 20) throw e
        await sleep(100 * attempt)
      }
    }
  } finally {
    await admin.end()
  }
}
