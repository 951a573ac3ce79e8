import type { Db } from '../db/database.js'
import { inTransaction } from '../db/transaction.js'
import type { ClientsService } from '../auth/clients.service.js'
import { newId } from '../shared/ids.js'
import * as repo from './seed.repo.js'
import { TRACKING_FORMATS, type Rand } from './tracking-formats.js'

const FIRST = ['Ada', 'Alan', 'Grace', 'Edsger', 'Barbara', 'Donald', 'Margaret', 'Ken', 'Frances', 'Dennis', 'Radia', 'John', 'Hedy', 'Tim', 'Katherine', 'Linus', 'Sophie', 'Niklaus', 'Shafi', 'Leslie', 'Maria', 'Wei', 'Aisha', 'Carlos', 'Yuki', 'Olga', 'Kwame', 'Priya', 'Lars', 'Fatima']
// Surnames are built from syllables so a facility's thousands of contacts mostly have distinct names, as real ones do.
const SYLLABLES = ['lo', 've', 'la', 'ce', 'tu', 'ring', 'hop', 'per', 'dijk', 'stra', 'lis', 'kov', 'knu', 'th', 'ham', 'il', 'ton', 'ber', 'ner', 'son', 'mar', 'ley', 'wir', 'gold', 'was', 'ser', 'ka', 'mi', 'no', 'ra']
const surname = (rand: Rand) => {
  const n = 2 + Math.floor(rand() * 2)
  let s = ''
  for (let i = 0; i < n; i++) s += SYLLABLES[Math.floor(rand() * SYLLABLES.length)]
  return s[0]!.toUpperCase() + s.slice(1)
}
const COMPANIES = ['Acme Corp', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark Industries', null, null]
const CARRIERS = Object.keys(TRACKING_FORMATS)
/** Where a package's story ends, with how often: most are collected, some wait, a few are damaged. */
const ENDINGS: Array<[string[], number]> = [
  [['RECEIVED', 'READY_FOR_PICKUP', 'PICKED_UP'], 0.4], [['RECEIVED', 'OUT_FOR_DELIVERY', 'DELIVERED'], 0.25], [['RECEIVED'], 0.1],
  [['RECEIVED', 'READY_FOR_PICKUP'], 0.1], [['RECEIVED', 'IN_LOCKER'], 0.06], [['RECEIVED', 'DAMAGED'], 0.02], [['RECEIVED', 'RETURNED_TO_SENDER'], 0.02],
  [['RECEIVED', 'READY_FOR_PICKUP', 'PICKED_UP', 'ARCHIVED'], 0.05],
]

/** Deterministic for a seed value, so a benchmark data set can be rebuilt exactly. */
function mulberry32(seed: number): Rand {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

export interface SeedOptions {
  subscription: string
  packages: number
  contacts: number
  batchSize?: number
  seed?: number
  now?: Date
  onProgress?: (done: number, total: number) => void
  /** Batches written at once (PostgreSQL connections used). */
  parallel?: number
}

/** A realistic subscription: locations, a site tree, contacts, and packages with their histories. */
export async function seedSubscription(db: Db, clients: ClientsService, o: SeedOptions): Promise<{ subId: string; clientId: string; clientSecret: string; packages: number; contacts: number }> {
  const rand = mulberry32(o.seed ?? 42)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const now = o.now ?? new Date()
  if (o.packages >= 100_000_000) throw new Error('at most 99,999,999 packages per seed')
  // A fresh subscription each time: seeded numbers are unique within one run, not across runs.
  if (await clients.subscriptionExists(o.subscription)) throw new Error(`subscription ${o.subscription} exists; seed into a new one`)
  const client = await clients.createClient({ subscription: o.subscription, name: 'seed' })
  const subId = client.subId
  const shelves: string[] = []
  await inTransaction(db, async (trx) => {
    for (let l = 0; l < 3; l++) {
      const locationId = newId('loc_')
      await repo.insertLocation(trx, { location_id: locationId, sub_id: subId, name: `Campus ${l + 1}`, city: 'New York', postalCode: `1000${l + 1}`, at: now })
      const siteId = newId('site_')
      await repo.insertSite(trx, { site_id: siteId, sub_id: subId, name: `Mailroom ${l + 1}`, type: 'site', parent_id: null, location_id: locationId, ancestor_ids: [], path_names: [`Mailroom ${l + 1}`], is_primary: l === 0, at: now })
      for (let b = 0; b < 3; b++) {
        const bId = newId('site_')
        const bPath = [`Mailroom ${l + 1}`, `Building ${b + 1}`]
        await repo.insertSite(trx, { site_id: bId, sub_id: subId, name: bPath[1]!, type: 'building', parent_id: siteId, location_id: locationId, ancestor_ids: [siteId], path_names: bPath, is_primary: false, at: now })
        for (let s = 0; s < 5; s++) {
          const sId = newId('site_')
          await repo.insertSite(trx, { site_id: sId, sub_id: subId, name: `Shelf ${s + 1}`, type: 'shelf', parent_id: bId, location_id: locationId, ancestor_ids: [siteId, bId], path_names: [...bPath, `Shelf ${s + 1}`], is_primary: false, at: now })
          shelves.push(sId)
        }
      }
    }
  })

  const contactIds: string[] = []
  const batch = o.batchSize ?? 5000
  for (let start = 0; start < o.contacts; start += batch) {
    const b: repo.ContactBatch = { contact_id: [], contact_type: [], name: [], company: [], email: [], personal_id: [], match_name: [], match_company: [] }
    for (let i = start; i < Math.min(o.contacts, start + batch); i++) {
      const first = pick(FIRST)
      const last = i === 0 ? 'Lovelace' : surname(rand)
      const company = pick(COMPANIES)
      const id = newId('con_')
      contactIds.push(id)
      b.contact_id.push(id); b.contact_type.push(rand() < 0.9 ? 'RECEIVER' : 'ALL'); b.name.push(`${first} ${last}`); b.company.push(company)
      b.email.push(`${first}.${last}.${i}@example.com`.toLowerCase()); b.personal_id.push(`E${100000 + i}`)
      b.match_name.push(`${first} ${last}`.toLowerCase().replace(/[^a-z0-9]+/g, ' ').trim()); b.match_company.push(company?.toLowerCase() ?? null)
    }
    await repo.insertContacts(db, subId, b, now)
  }

  const span = 180 * 86_400_000
  let done = 0
  const inFlight: Array<Promise<void>> = []
  for (let start = 0; start < o.packages; start += batch) {
    const p: repo.PackageBatch = { package_id: [], tracking_number: [], carrier_id: [], current_status: [], damaged: [], archived: [], receiver_id: [], sender_id: [], given_to_id: [], site_id: [], package_location: [], comment: [], user_name: [], delivery_time: [], created_at: [], updated_at: [], activity_count: [] }
    const a: repo.ActivityBatch = { activity_id: [], package_id: [], sequence: [], status: [], site_id: [], damaged: [], user_name: [], occurred_at: [] }
    for (let i = start; i < Math.min(o.packages, start + batch); i++) {
      const id = newId('pkg_')
      const carrier = pick(CARRIERS)
      const created = now.getTime() - Math.floor(rand() * span)
      let r = rand()
      let story = ENDINGS[0]![0]
      for (const [steps, weight] of ENDINGS) if ((r -= weight) <= 0) { story = steps; break }
      const site = pick(shelves)
      const receiver = pick(contactIds)
      const clerk = pick(['front desk', 'night shift', 'loading dock'])
      let t = created
      story.forEach((status, k) => {
        if (k > 0) t += Math.floor(rand() * 3 * 86_400_000)
        a.activity_id.push(newId('act_')); a.package_id.push(id); a.sequence.push(k + 1); a.status.push(status); a.site_id.push(site)
        a.damaged.push(status === 'DAMAGED'); a.user_name.push(clerk); a.occurred_at.push(new Date(t).toISOString())
      })
      const last = story[story.length - 1]!
      const delivered = story.some((s) => s === 'DELIVERED' || s === 'PICKED_UP')
      p.package_id.push(id); p.tracking_number.push(TRACKING_FORMATS[carrier]!(rand, i)); p.carrier_id.push(carrier); p.current_status.push(last)
      p.damaged.push(last === 'DAMAGED'); p.archived.push(last === 'ARCHIVED'); p.receiver_id.push(receiver); p.sender_id.push(null)
      p.given_to_id.push(delivered ? receiver : null); p.site_id.push(site); p.package_location.push(rand() < 0.5 ? `Bin ${1 + Math.floor(rand() * 40)}` : null)
      p.comment.push(rand() < 0.1 ? 'Handle with care' : null); p.user_name.push(clerk); p.delivery_time.push(delivered ? new Date(t).toISOString() : null)
      p.created_at.push(new Date(created).toISOString()); p.updated_at.push(new Date(t).toISOString()); p.activity_count.push(story.length)
    }
    // Generate the next batch while the database writes this one (up to `parallel` batches in flight).
    const write = inTransaction(db, async (trx) => {
      await repo.insertPackages(trx, subId, p)
      await repo.insertActivities(trx, subId, a)
    }).then(() => {
      done += p.package_id.length
      o.onProgress?.(done, o.packages)
    })
    inFlight.push(write)
    if (inFlight.length >= (o.parallel ?? 2)) await inFlight.shift()
  }
  await Promise.all(inFlight)
  await repo.analyze(db)
  return { subId, clientId: client.clientId, clientSecret: client.clientSecret, packages: o.packages, contacts: o.contacts }
}
