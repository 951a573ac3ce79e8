/**
 * The directory match's query plans at scale (issue 27): a subscription of 50,000 contacts beside
 * a small one, then EXPLAIN ANALYZE of the candidate query for a few printed names, and the time
 * of the whole match. Same SQL on PGlite (default) and PostgreSQL (DATABASE_URL).
 *
 *   node --import tsx bench/label-ocr-explain.ts [contacts=50000]
 */
import { sql } from 'kysely'
import { createRecipientMatcher } from '../src/contacts/index.js'
import { normalizeForMatch } from '../src/contacts/model/normalize.js'
import { parsePersonName } from '../src/decode/index.js'
import { openDatabase, type Db } from '../src/platform/db/database.js'
import { migrateToLatest } from '../src/platform/db/migrate.js'
import { directoryName, makeDirectory, makeLabels, type Person } from './labels/directory.js'

const size = Number(process.argv[2] ?? 50_000)

async function load(db: Db, subId: string, people: Person[]): Promise<number> {
  await sql`insert into subscriptions (sub_id, name) values (${subId}, ${subId})`.execute(db)
  const started = performance.now()
  for (let i = 0; i < people.length; i += 1000) {
    const rows = people.slice(i, i + 1000).map((p) => ({
      contact_id: `${subId}_${p.contactId}`,
      sub_id: subId,
      contact_type: 'RECEIVER' as const,
      name: directoryName(p),
      company: p.company ?? null,
      match_name: normalizeForMatch(directoryName(p)),
      match_company: p.company ? normalizeForMatch(p.company) : null,
      status: 'active' as const,
      unit: p.unit ?? null,
      aliases: p.aliases,
      created_at: new Date(),
      updated_at: new Date(),
    }))
    await db.insertInto('contacts').values(rows).execute()
  }
  const ms = performance.now() - started
  await sql`analyze contacts`.execute(db)
  await sql`analyze contact_name_words`.execute(db)
  return ms
}

const url = process.env.DATABASE_URL
const handle = await openDatabase(url ? { kind: 'postgres', url, poolSize: 2 } : { kind: 'pglite', dir: 'memory' })
await migrateToLatest(handle.db)
const db = handle.db
const small = await load(db, 'small', makeDirectory(2000, 27))
const big = await load(db, 'big', makeDirectory(size, 99))
console.log(`import: 2,000 contacts ${Math.round(small)} ms, ${size} contacts ${Math.round(big)} ms`)

// The candidate query as store/match.ts writes it, for one printed name.
for (const printed of ['ROBERT SMITH', 'R. SMYTH', 'SMITH, BOB']) {
  const name = parsePersonName(printed)!
  const surname = normalizeForMatch(name.last).split(' ')
  const first = name.first.length > 1 ? [normalizeForMatch(name.first)] : undefined
  await sql`select set_config('pg_trgm.similarity_threshold', '0.3', false)`.execute(db)
  const near = (tokens: string[]) => sql`array(
      select w.word from unnest(${tokens}::text[]) as t(token)
      join contact_name_words w on w.sub_id = ${'big'} and w.word % t.token
      union select unnest(${tokens}::text[]))`
  const firstCond = first
    ? sql`and (string_to_array(c.match_name, ' ') && ${near(first)}
           or contact_alias_words(c.aliases) && ${first}::text[])`
    : sql``
  const { rows } = await sql<{ 'QUERY PLAN': string }>`explain analyze
    select c.contact_id from contacts c
    where c.sub_id = ${'big'} and c.deleted_at is null and c.status = 'active'
      and string_to_array(c.match_name, ' ') && ${near(surname)} ${firstCond}
    limit 500`.execute(db)
  console.log(`\n-- ${printed}`)
  for (const r of rows) console.log(r['QUERY PLAN'])
}

const matcher = createRecipientMatcher({ db, policy: { threshold: 0.9, margin: 0.08 } })
const labels = makeLabels(makeDirectory(size, 99), 220, 3)
const ms: number[] = []
for (const l of labels) {
  const name = parsePersonName(l.printedName)
  const t0 = performance.now()
  await matcher.matchRecipient('big', name ? { name } : {})
  ms.push(performance.now() - t0)
}
const s = ms.slice(20).sort((a, b) => a - b)
const q = (p: number) => s[Math.min(s.length - 1, Math.ceil(p * s.length) - 1)]!.toFixed(1)
console.log(`\nmatching at ${size} contacts: p50 ${q(0.5)} ms, p95 ${q(0.95)} ms (${s.length} names)`)
await handle.close()
