import type { Db } from '../../platform/db/database.js'
import { inTransaction, type Trx } from '../../platform/db/transaction.js'
import type { ClientsService } from '../../access/index.js'
import { newId } from '../../platform/kit/ids.js'
import { foldTallies, tallySubscription } from '../../search/index.js'
import * as repo from './store.js'
import { TRACKING_FORMATS } from './tracking-formats.js'
import { mulberry32, type Rand } from '../../platform/kit/random.js'

const FIRST = [
  'Ada',
  'Alan',
  'Grace',
  'Edsger',
  'Barbara',
  'Donald',
  'Margaret',
  'Ken',
  'Frances',
  'Dennis',
  'Radia',
  'John',
  'Hedy',
  'Tim',
  'Katherine',
  'Linus',
  'Sophie',
  'Niklaus',
  'Shafi',
  'Leslie',
  'Maria',
  'Wei',
  'Aisha',
  'Carlos',
  'Yuki',
  'Olga',
  'Kwame',
  'Priya',
  'Lars',
  'Fatima',
]
// Surnames are built from syllables so a facility's thousands of contacts mostly have distinct names, as real ones do.
const SYLLABLES = [
  'lo',
  've',
  'la',
  'ce',
  'tu',
  'ring',
  'hop',
  'per',
  'dijk',
  'stra',
  'lis',
  'kov',
  'knu',
  'th',
  'ham',
  'il',
  'ton',
  'ber',
  'ner',
  'son',
  'mar',
  'ley',
  'wir',
  'gold',
  'was',
  'ser',
  'ka',
  'mi',
  'no',
  'ra',
]
const surname = (rand: Rand) => {
  const n = 2 + Math.floor(rand() * 2)
  let s = ''
  for (let i = 0; i < n; i++) s += SYLLABLES[Math.floor(rand() * SYLLABLES.length)]
  return s[0]!.toUpperCase() + s.slice(1)
}
const COMPANIES = ['Acme Corp', 'Globex', 'Initech', 'Umbrella', 'Hooli', 'Stark Industries', null, null]
// Senders are mostly the shops and suppliers a facility hears from again and again.
const SENDER_NAMES = [
  'Acme Supplies',
  'Globex Shipping',
  'Northwind Traders',
  'Contoso Retail',
  'Fabrikam Parts',
  'Tailspin Toys',
  'Wide World Importers',
  'Litware Books',
  'Proseware Labs',
  'Adventure Works',
]
const CARRIERS = Object.keys(TRACKING_FORMATS)
/** Where a package's story ends, with how often: most are collected, some wait, a few are damaged. */
const ENDINGS: Array<[string[], number]> = [
  [['RECEIVED', 'READY_FOR_PICKUP', 'PICKED_UP'], 0.4],
  [['RECEIVED', 'OUT_FOR_DELIVERY', 'DELIVERED'], 0.25],
  [['RECEIVED'], 0.1],
  [['RECEIVED', 'READY_FOR_PICKUP'], 0.1],
  [['RECEIVED', 'IN_LOCKER'], 0.06],
  [['RECEIVED', 'DAMAGED'], 0.02],
  [['RECEIVED', 'RETURNED_TO_SENDER'], 0.02],
  [['RECEIVED', 'READY_FOR_PICKUP', 'PICKED_UP', 'ARCHIVED'], 0.05],
]
const LOCKER_BANKS = ['North Lobby', 'South Lobby', 'Garage', 'Annex']
/** The subscription's custom fields, and how often a package carries a value for each. */
const CUSTOM_FIELDS: Array<{
  name: string
  dataType: 'TEXT' | 'LIST'
  options?: string[]
  share: number
  value: (rand: Rand, i: number) => string
}> = [
  {
    name: 'Department',
    dataType: 'LIST',
    options: ['Finance', 'Engineering', 'Legal', 'Facilities', 'Research', 'Marketing'],
    share: 0.6,
    value: (r) => ['Finance', 'Engineering', 'Legal', 'Facilities', 'Research', 'Marketing'][Math.floor(r() * 6)]!,
  },
  { name: 'PO Number', dataType: 'TEXT', share: 0.3, value: (_r, i) => `PO-${String(i).padStart(8, '0')}` },
  { name: 'Cost Center', dataType: 'TEXT', share: 0.2, value: (r) => `CC${100 + Math.floor(r() * 50)}` },
]

export interface SeedOptions {
  subscription: string
  packages: number
  contacts: number
  batchSize?: number
  seed?: number
  now?: Date
  onProgress?: (done: number, total: number) => void
  /** Batches written at once (PostgreSQL connections used) when loading into a table that has packages. */
  parallel?: number
  onPhase?: (phase: string) => void
  /** Load without secondary indexes and foreign keys, rebuilt at the end; default from BULK_LOAD_MIN packages into an empty table. */
  bulk?: boolean
}

/** From this many packages into an empty table, the load drops the secondary indexes and builds them after. */
const BULK_LOAD_MIN = 50_000

/** A realistic subscription: locations, a site tree, contacts, custom fields, and packages with their histories. */
export async function seedSubscription(
  db: Db,
  clients: ClientsService,
  o: SeedOptions,
): Promise<{ subId: string; clientId: string; clientSecret: string; packages: number; contacts: number }> {
  const rand = mulberry32(o.seed ?? 42)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const now = o.now ?? new Date()
  if (o.packages >= 100_000_000) throw new Error('at most 99,999,999 packages per seed')
  // A fresh subscription each time: seeded numbers are unique within one run, not across runs.
  if (await clients.subscriptionExists(o.subscription))
    throw new Error(`subscription ${o.subscription} exists; seed into a new one`)
  const client = await clients.createClient({ subscription: o.subscription, name: 'seed' })
  const subId = client.subId
  const shelves = await seedSites(db, subId, now)
  const batch = o.batchSize ?? 5000
  const { receivers, senders } = await seedContacts(db, subId, o.contacts, batch, rand, now)
  const fields = await seedCustomFields(db, subId, now)

  const span = 180 * 86_400_000
  const makeBatch = (start: number, end: number) => {
    const p: repo.PackageBatch = {
      package_id: [],
      tracking_number: [],
      carrier_id: [],
      current_status: [],
      damaged: [],
      archived: [],
      receiver_id: [],
      sender_id: [],
      given_to_id: [],
      site_id: [],
      package_location: [],
      locker_bank: [],
      locker_unit: [],
      custom_fields: [],
      comment: [],
      user_name: [],
      delivery_time: [],
      created_at: [],
      updated_at: [],
      activity_count: [],
    }
    const a: repo.ActivityBatch = {
      activity_id: [],
      package_id: [],
      sequence: [],
      status: [],
      site_id: [],
      locker_bank: [],
      locker_unit: [],
      damaged: [],
      user_name: [],
      occurred_at: [],
    }
    for (let i = start; i < end; i++) {
      const id = newId('pkg_')
      const carrier = pick(CARRIERS)
      // Packages arrive over the last 180 days in order, as a live table fills: row order follows time.
      const created = now.getTime() - span + Math.floor(((i + rand()) / o.packages) * span)
      let r = rand()
      let story = ENDINGS[0]![0]
      for (const [steps, weight] of ENDINGS)
        if ((r -= weight) <= 0) {
          story = steps
          break
        }
      const site = pick(shelves)
      const receiver = pick(receivers)
      const clerk = pick(['front desk', 'night shift', 'loading dock'])
      const last = story[story.length - 1]!
      const locker =
        last === 'IN_LOCKER' ? { bank: pick(LOCKER_BANKS), unit: String(1 + Math.floor(rand() * 60)) } : undefined
      let t = created
      story.forEach((status, k) => {
        if (k > 0) t = Math.min(now.getTime(), t + Math.floor(rand() * 3 * 86_400_000))
        a.activity_id.push(newId('act_'))
        a.package_id.push(id)
        a.sequence.push(k + 1)
        a.status.push(status)
        a.site_id.push(site)
        a.locker_bank.push(status === 'IN_LOCKER' ? locker!.bank : null)
        a.locker_unit.push(status === 'IN_LOCKER' ? locker!.unit : null)
        a.damaged.push(status === 'DAMAGED')
        a.user_name.push(clerk)
        a.occurred_at.push(new Date(t).toISOString())
      })
      const delivered = story.some((s) => s === 'DELIVERED' || s === 'PICKED_UP')
      const values = fields
        .filter((f) => rand() < f.share)
        .map((f) => ({ customFieldId: f.id, value: f.value(rand, i) }))
      p.package_id.push(id)
      p.tracking_number.push(TRACKING_FORMATS[carrier]!(rand, i))
      p.carrier_id.push(carrier)
      p.current_status.push(last)
      p.damaged.push(last === 'DAMAGED')
      p.archived.push(last === 'ARCHIVED')
      p.receiver_id.push(receiver)
      p.sender_id.push(rand() < 0.7 ? pick(senders) : null)
      p.given_to_id.push(delivered ? receiver : null)
      p.site_id.push(site)
      p.package_location.push(!locker && rand() < 0.5 ? `Bin ${1 + Math.floor(rand() * 40)}` : null)
      p.locker_bank.push(locker?.bank ?? null)
      p.locker_unit.push(locker?.unit ?? null)
      p.custom_fields.push(JSON.stringify(values))
      p.comment.push(rand() < 0.1 ? pick(COMMENTS) : null)
      p.user_name.push(clerk)
      p.delivery_time.push(delivered ? new Date(t).toISOString() : null)
      p.created_at.push(new Date(created).toISOString())
      p.updated_at.push(new Date(t).toISOString())
      p.activity_count.push(story.length)
    }
    return { p, a }
  }
  let done = 0
  const write = async (trx: Trx, b: ReturnType<typeof makeBatch>) => {
    await repo.insertPackages(trx, subId, b.p)
    await repo.insertActivities(trx, subId, b.a)
    done += b.p.package_id.length
    o.onProgress?.(done, o.packages)
  }
  const bulk = o.bulk ?? (o.packages >= BULK_LOAD_MIN && !(await repo.hasPackages(db)))
  if (bulk) {
    // Into an empty table, loading without the secondary indexes and foreign keys and building them
    // once afterwards is several times faster than maintaining them row by row. One transaction: if
    // the load fails or the process dies, nothing was ever dropped.
    await inTransaction(db, async (trx) => {
      const tables = ['packages', 'package_activities']
      const indexes = await repo.dropSecondaryIndexes(trx, tables)
      const keys = await repo.dropForeignKeys(trx, tables)
      await repo.setTallyTriggers(trx, false)
      let pending: Promise<void> = Promise.resolve()
      for (let start = 0; start < o.packages; start += batch) {
        // Generate the next batch while the database writes this one.
        const next = makeBatch(start, Math.min(o.packages, start + batch))
        await pending
        pending = write(trx, next)
      }
      await pending
      o.onPhase?.(`building ${indexes.length} indexes, checking ${keys.length} foreign keys`)
      await repo.createIndexes(trx, indexes)
      await repo.addForeignKeys(trx, keys)
      o.onPhase?.('search tallies')
      await tallySubscription(trx, subId)
      await repo.setTallyTriggers(trx, true)
    })
  } else {
    const inFlight: Array<Promise<void>> = []
    for (let start = 0; start < o.packages; start += batch) {
      const next = makeBatch(start, Math.min(o.packages, start + batch))
      // Up to `parallel` batches in flight, each its own transaction.
      inFlight.push(inTransaction(db, (trx) => write(trx, next)))
      if (inFlight.length >= (o.parallel ?? 2)) await inFlight.shift()
    }
    await Promise.all(inFlight)
  }
  await foldTallies(db)
  o.onPhase?.('vacuum and analyze')
  await repo.vacuumAnalyze(db)
  return {
    subId,
    clientId: client.clientId,
    clientSecret: client.clientSecret,
    packages: o.packages,
    contacts: o.contacts,
  }
}

const COMMENTS = [
  'Handle with care',
  'Fragile',
  'Perishable: refrigerate',
  'Oversized, at the loading dock',
  'Box dented on arrival',
  'Signature required',
]

/** Three locations, each a mailroom → three buildings → five shelves; returns the shelves. */
async function seedSites(db: Db, subId: string, now: Date): Promise<string[]> {
  const shelves: string[] = []
  await inTransaction(db, async (trx) => {
    for (let l = 0; l < 3; l++) {
      const locationId = newId('loc_')
      await repo.insertLocation(trx, {
        location_id: locationId,
        sub_id: subId,
        name: `Campus ${l + 1}`,
        city: 'New York',
        postalCode: `1000${l + 1}`,
        at: now,
      })
      const siteId = newId('site_')
      await repo.insertSite(trx, {
        site_id: siteId,
        sub_id: subId,
        name: `Mailroom ${l + 1}`,
        type: 'site',
        parent_id: null,
        location_id: locationId,
        ancestor_ids: [],
        path_names: [`Mailroom ${l + 1}`],
        is_primary: l === 0,
        at: now,
      })
      for (let b = 0; b < 3; b++) {
        const bId = newId('site_')
        const bPath = [`Mailroom ${l + 1}`, `Building ${b + 1}`]
        await repo.insertSite(trx, {
          site_id: bId,
          sub_id: subId,
          name: bPath[1]!,
          type: 'building',
          parent_id: siteId,
          location_id: locationId,
          ancestor_ids: [siteId],
          path_names: bPath,
          is_primary: false,
          at: now,
        })
        for (let s = 0; s < 5; s++) {
          const sId = newId('site_')
          await repo.insertSite(trx, {
            site_id: sId,
            sub_id: subId,
            name: `Shelf ${s + 1}`,
            type: 'shelf',
            parent_id: bId,
            location_id: locationId,
            ancestor_ids: [siteId, bId],
            path_names: [...bPath, `Shelf ${s + 1}`],
            is_primary: false,
            at: now,
          })
          shelves.push(sId)
        }
      }
    }
  })
  return shelves
}

/**
 * `count` people (RECEIVER, a tenth ALL) and a twentieth as many SENDER companies. Receivers are
 * the RECEIVER and ALL contacts, senders the SENDER and ALL ones, as the contact types mean.
 */
async function seedContacts(
  db: Db,
  subId: string,
  count: number,
  batch: number,
  rand: Rand,
  now: Date,
): Promise<{ receivers: string[]; senders: string[] }> {
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!
  const receivers: string[] = []
  const senders: string[] = []
  const senderCount = Math.max(5, Math.round(count / 20))
  const total = count + senderCount
  for (let start = 0; start < total; start += batch) {
    const b: repo.ContactBatch = {
      contact_id: [],
      contact_type: [],
      name: [],
      company: [],
      email: [],
      personal_id: [],
      match_name: [],
      match_company: [],
    }
    for (let i = start; i < Math.min(total, start + batch); i++) {
      const id = newId('con_')
      let type: string, name: string, company: string | null, email: string
      if (i < count) {
        const first = pick(FIRST)
        const last = i === 0 ? 'Lovelace' : surname(rand)
        type = rand() < 0.9 ? 'RECEIVER' : 'ALL'
        name = `${first} ${last}`
        company = pick(COMPANIES)
        email = `${first}.${last}.${i}@example.com`.toLowerCase()
      } else {
        const k = i - count
        type = 'SENDER'
        name = k < SENDER_NAMES.length ? SENDER_NAMES[k]! : `${pick(SENDER_NAMES)} ${k}`
        company = name
        email = `orders${k}@${name.toLowerCase().replace(/[^a-z0-9]+/g, '')}.example`
      }
      if (type !== 'SENDER') receivers.push(id)
      if (type !== 'RECEIVER') senders.push(id)
      b.contact_id.push(id)
      b.contact_type.push(type)
      b.name.push(name)
      b.company.push(company)
      b.email.push(email)
      b.personal_id.push(`E${100000 + i}`)
      b.match_name.push(
        name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, ' ')
          .trim(),
      )
      b.match_company.push(company?.toLowerCase() ?? null)
    }
    await repo.insertContacts(db, subId, b, now)
  }
  return { receivers, senders }
}

async function seedCustomFields(
  db: Db,
  subId: string,
  now: Date,
): Promise<Array<(typeof CUSTOM_FIELDS)[number] & { id: string }>> {
  const out: Array<(typeof CUSTOM_FIELDS)[number] & { id: string }> = []
  for (const f of CUSTOM_FIELDS) {
    const id = newId('cf_')
    await repo.insertCustomField(db, {
      custom_field_id: id,
      sub_id: subId,
      name: f.name,
      data_type: f.dataType,
      options: f.options ?? null,
      at: now,
    })
    out.push({ ...f, id })
  }
  return out
}
