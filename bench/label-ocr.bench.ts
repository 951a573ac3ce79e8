/**
 * Label photos to recipients (issue 27). Renders a labelled set of synthetic 4×6 labels (headless
 * Chromium + bwip-js, bench/labels/), each as a clean scan and as a photo (turned, tilted, blurred,
 * unevenly lit, JPEG), addressed to people of a 2,000-person directory of confusable surnames in
 * several name formats, then reads each through the service's own path: the decode pool (one
 * thread: one core) for barcodes and text, findShipTo, and the directory match on PGlite.
 *
 *   node --import tsx bench/label-ocr.bench.ts [labels=200] [bigDirectory=50000]
 *
 * 200 labels by default (about 5 minutes): at 40, one label was 2.5 points of top-1, too coarse
 * to judge a 97% target, and the misses of a few formats never showed.
 *
 * Targets: top-1 ≥ 90% on photos and ≥ 97% on clean scans, top-3 ≥ 95% on photos, auto-assigned
 * recipients ≥ 99% correct, OCR p50 ≤ 600 ms per photo on one core, matching ≤ 10 ms at 50,000
 * contacts. Labels printed with an initial only ("R. SMITH") where two people share the surname
 * and initial, and the label prints no unit or company only one of them has, cannot be told apart
 * by anyone: they are counted in top-1, and the top-1 of the others is reported beside it.
 */
import { createRecipientMatcher } from '../src/contacts/index.js'
import { normalizeForMatch } from '../src/contacts/model/normalize.js'
import { findShipTo, ImageDecodePool, parsePersonName } from '../src/decode/index.js'
import { openDatabase } from '../src/platform/db/database.js'
import { migrateToLatest } from '../src/platform/db/migrate.js'
import type { Db } from '../src/platform/db/database.js'
import { sql } from 'kysely'
import { analyzeChangedTables } from '../src/platform/db/embedded-statistics.js'
import { directoryName, makeDirectory, makeLabels, withManySurnames, type Person } from './labels/directory.js'
import { renderLabels } from './labels/render.js'

const count = Number(process.argv[2] ?? 200)
const bigSize = Number(process.argv[3] ?? 50_000)
const policy = { threshold: 0.9, margin: 0.08 }

async function loadDirectory(db: Db, subId: string, people: Person[]): Promise<void> {
  await sql`insert into subscriptions (sub_id, name) values (${subId}, ${subId})`.execute(db)
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
  // The statistics the service's own task keeps on the embedded engine (a minute after an import).
  await analyzeChangedTables(db)
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return Math.round(s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]! * 10) / 10
}

const pct = (n: number, of: number) => (of === 0 ? '–' : `${((100 * n) / of).toFixed(1)}%`)

const handle = await openDatabase({ kind: 'pglite', dir: 'memory' })
await migrateToLatest(handle.db)
const people = makeDirectory(2000)
await loadDirectory(handle.db, 'bench', people)
const matcher = createRecipientMatcher({ db: handle.db, policy })
const labels = makeLabels(people, count)
console.log(`rendering ${count} labels (clean + photo) in Chromium…`)
const shots = await renderLabels(labels)

// Who cannot be told apart from the label alone: an initial shared by two people of one surname,
// when the label prints no unit and no company that only one of them has.
const ambiguous = new Set(
  labels
    .filter((l) => {
      if (l.format !== 'initial-last') return false
      const p = people.find((x) => x.contactId === l.contactId)!
      const unit = l.unit?.split(' ').at(-1)
      const twins = people.filter(
        (x) =>
          x.contactId !== p.contactId &&
          x.last === p.last &&
          x.first[0] === p.first[0] &&
          (!unit || x.unit === unit) &&
          (!l.company || x.company === l.company),
      )
      return twins.length > 0
    })
    .map((l) => l.contactId),
)

const pool = new ImageDecodePool({ threads: 1, maxQueue: 8, timeoutMs: 120_000, maxPixels: 50_000_000 })
await pool.readLabel(shots[0]!.bytes) // starts the thread, the wasm and the model: not a label's cost

type Tally = {
  n: number
  top1: number
  top3: number
  chosen: number
  chosenRight: number
  ambiguous: number
  ambiguousTop1: number
}
const tally: Record<'clean' | 'photo', Tally> = {
  clean: { n: 0, top1: 0, top3: 0, chosen: 0, chosenRight: 0, ambiguous: 0, ambiguousTop1: 0 },
  photo: { n: 0, top1: 0, top3: 0, chosen: 0, chosenRight: 0, ambiguous: 0, ambiguousTop1: 0 },
}
const readMs: Record<'clean' | 'photo', number[]> = { clean: [], photo: [] }
const misses: string[] = []
for (const shot of shots) {
  const started = performance.now()
  const read = await pool.readLabel(shot.bytes)
  readMs[shot.kind].push(performance.now() - started)
  const shipTo = read.text ? findShipTo(read.text.lines) : undefined
  const match =
    shipTo && (shipTo.name || shipTo.company)
      ? await matcher.matchRecipient('bench', {
          ...(shipTo.name ? { name: shipTo.name } : {}),
          ...(shipTo.company ? { company: shipTo.company } : {}),
          ...(shipTo.unit ? { unit: shipTo.unit } : {}),
        })
      : { suggestions: [] }
  const truth = `bench_${shot.spec.contactId}`
  const t = tally[shot.kind]
  t.n++
  if (ambiguous.has(shot.spec.contactId)) t.ambiguous++
  const ids = match.suggestions.map((s) => s.contactId)
  if (ids[0] === truth) {
    t.top1++
    if (ambiguous.has(shot.spec.contactId)) t.ambiguousTop1++
  } else
    misses.push(
      `${shot.kind} ${shot.spec.format} "${shot.spec.printedName}"${ambiguous.has(shot.spec.contactId) ? ' (no one can tell)' : ''} read "${shipTo?.nameLine ?? '∅'}" unit ${shipTo?.unit ?? '∅'} company ${shipTo?.company ?? '∅'} → ${match.suggestions.map((x) => `${x.name} ${x.score}`).join(', ') || '∅'}`,
    )
  if (ids.slice(0, 3).includes(truth)) t.top3++
  if ('chosen' in match && match.chosen) {
    t.chosen++
    if (match.chosen.contactId === truth) t.chosenRight++
  }
}
await pool.close()

// Matching alone at scale: the label's printed name, parsed, against a directory of `bigSize`,
// once of the confusable families (a few hundred distinct name words) and once with most surnames
// made up (a few thousand words, as a real directory has).
async function timeMatching(subId: string, directory: Person[]): Promise<number[]> {
  await loadDirectory(handle.db, subId, directory)
  const bigMatcher = createRecipientMatcher({ db: handle.db, policy })
  const bigLabels = makeLabels(directory, 200, 3)
  const ms: number[] = []
  for (const l of [...bigLabels.slice(0, 20), ...bigLabels]) {
    const name = parsePersonName(l.printedName)
    const started = performance.now()
    await bigMatcher.matchRecipient(subId, name ? { name } : {})
    ms.push(performance.now() - started)
  }
  return ms.slice(20) // warm-up
}
const big = makeDirectory(bigSize, 99)
const matchMs = await timeMatching('big', big)
const manyMs = await timeMatching('many', withManySurnames(big))
const words = async (subId: string) =>
  (
    await sql<{ n: number }>`select count(*)::int as n from contact_name_words where sub_id = ${subId}`.execute(
      handle.db,
    )
  ).rows[0]!.n
const bigWords = await words('big')
const manyWords = await words('many')
await handle.close()

console.log()
console.log(
  `directory: ${people.length} people; labels: ${count} (${ambiguous.size} printed as an initial two people share, with no unit or company that tells them apart)`,
)
for (const kind of ['clean', 'photo'] as const) {
  const t = tally[kind]
  console.log(
    `${kind.padEnd(6)} top-1 ${pct(t.top1, t.n)} (of the ${t.n - t.ambiguous} a person can tell: ${pct(t.top1 - t.ambiguousTop1, t.n - t.ambiguous)})  top-3 ${pct(t.top3, t.n)}  auto-assigned ${pct(t.chosen, t.n)}, of which right ${pct(t.chosenRight, t.chosen)}  read p50 ${quantile(readMs[kind], 0.5)} ms p95 ${quantile(readMs[kind], 0.95)} ms`,
  )
}
for (const [what, ms, n] of [
  ['confusable families', matchMs, bigWords],
  ['many surnames', manyMs, manyWords],
] as const)
  console.log(
    `matching at ${big.length} contacts (${what}, ${n} name words): p50 ${quantile(ms, 0.5)} ms, p95 ${quantile(ms, 0.95)} ms (${ms.length} names)`,
  )
if (process.env.BENCH_VERBOSE) for (const m of misses) console.log(`  miss: ${m}`)
