import type { Db } from '../platform/db/database.js'
import { ValidationErrors } from '../platform/kit/errors.js'
import { isPlainAddress, PLAIN_ADDRESS_RULE } from './model/email.js'
import * as delegates from './store/delegates.js'

/** What contacts need from inbound sites (the sites service, given in context.ts). */
export interface ContactSites {
  existingSiteIds(subId: string, ids: string[]): Promise<Set<string>>
}

/** A contact write's checks that read the database: its email, its site links, its delegates. */
export function createContactChecks({ db, sites }: { db: Db; sites: ContactSites }) {
  /** Checks email and site links together, so one answer lists every problem. */
  async function check(
    subId: string,
    v: { email: string | null; location?: string | null; mailStop?: string | null },
  ): Promise<void> {
    const problems: Array<{ field: string; description: string }> = []
    if (v.email !== null && !isPlainAddress(v.email))
      problems.push({ field: 'email', description: `email must be ${PLAIN_ADDRESS_RULE}` })
    const links: Array<[string, string]> = []
    if (v.location) links.push(['location.inboundSiteId', v.location])
    if (v.mailStop) links.push(['mailStopLocation.inboundSiteId', v.mailStop])
    if (links.length > 0) {
      const live = await sites.existingSiteIds(
        subId,
        links.map(([, id]) => id),
      )
      for (const [field, id] of links)
        if (!live.has(id)) problems.push({ field, description: `No inbound site ${id}.` })
    }
    if (problems.length > 0) throw new ValidationErrors(problems)
  }

  /** Delegates are live contacts of the subscription, and not the contact itself: 400 naming `delegates`. */
  async function checkDelegates(subId: string, contactId: string, ids: string[]): Promise<void> {
    if (ids.length === 0) return
    const live = await delegates.liveContactIds(db, subId, ids)
    const bad = ids.filter((id) => id === contactId || !live.has(id))
    if (bad.length > 0)
      throw new ValidationErrors(
        bad.map((id) => ({
          field: 'delegates',
          description: id === contactId ? 'A contact is not its own delegate.' : `No contact ${id}.`,
        })),
      )
  }

  return { check, checkDelegates }
}
