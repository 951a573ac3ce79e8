import type { Db } from '../../platform/db/database.js'
import { inTransaction, type Trx } from '../../platform/db/transaction.js'
import type { ClientsService } from '../../access/index.js'
import { newId } from '../../platform/kit/ids.js'
import { foldTallies, tallySubscription } from '../../search/index.js'
import * as repo from './store.js'
import { TRACKING_FORMATS } from './tracking-formats.js'
import { mulberry32 } from '../../platform/kit/random.js'

import { CARRIERS, COMMENTS, ENDINGS, LOCKER_BANKS } from './sample-data.js'
import { seedContacts, seedCustomFields, seedSites } from './directory.js'
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
  // Progress counts what committed: a transaction run again after a deadlock (inTransaction) is not counted twice.
  let done = 0
  const written = (b: ReturnType<typeof makeBatch>) => {
    done += b.p.package_id.length
    o.onProgress?.(done, o.packages)
  }
  const write = async (trx: Trx, b: ReturnType<typeof makeBatch>) => {
    await repo.insertPackages(trx, subId, b.p)
    await repo.insertActivities(trx, subId, b.a)
  }
  const bulk = o.bulk ?? (o.packages >= BULK_LOAD_MIN && !(await repo.hasPackages(db)))
  if (bulk) {
    // Into an empty table, loading without the secondary indexes and foreign keys and building them
    // once afterwards is several times faster than maintaining them row by row. One transaction: if
    // the load fails or the process dies, nothing was ever dropped.
    await inTransaction(db, async (trx) => {
      // One transaction for the whole load: its progress is reported as it goes, from zero on each run.
      done = 0
      const tables = ['packages', 'package_activities']
      const indexes = await repo.dropSecondaryIndexes(trx, tables)
      const keys = await repo.dropForeignKeys(trx, tables)
      await repo.setTallyTriggers(trx, false)
      let pending: Promise<void> = Promise.resolve()
      for (let start = 0; start < o.packages; start += batch) {
        // Generate the next batch while the database writes this one.
        const next = makeBatch(start, Math.min(o.packages, start + batch))
        await pending
        pending = write(trx, next).then(() => written(next))
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
      inFlight.push(inTransaction(db, (trx) => write(trx, next)).then(() => written(next)))
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
