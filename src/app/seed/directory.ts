import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import { newId } from '../../platform/kit/ids.js'
import type { Rand } from '../../platform/kit/random.js'
import * as repo from './store.js'
import { COMPANIES, CUSTOM_FIELDS, FIRST, SENDER_NAMES, surname } from './sample-data.js'

// The seed's directory: sites and shelves, contacts, custom fields.
/** Three locations, each a mailroom → three buildings → five shelves; returns the shelves. */
export async function seedSites(db: Db, subId: string, now: Date): Promise<string[]> {
  // Built inside the transaction: a run again after a deadlock (inTransaction) starts a new list.
  return inTransaction(db, async (trx) => {
    const shelves: string[] = []
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
    return shelves
  })
}

/**
 * `count` people (RECEIVER, a tenth ALL) and a twentieth as many SENDER companies. Receivers are
 * the RECEIVER and ALL contacts, senders the SENDER and ALL ones, as the contact types mean.
 */
export async function seedContacts(
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

export async function seedCustomFields(
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
