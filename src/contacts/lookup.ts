import type { Db } from '../platform/db/database.js'
import { toRecord, type ContactRecord } from './model/contact-record.js'
import { normalizeForMatch } from './model/normalize.js'
import * as repo from './store/contacts.js'

/** Most contacts a decode match returns; more means the name is too common to pick from. */
const MAX_MATCHES = 20

/** The decode flow's exact lookups of a label's ship-to among the receivers. */
export function createLookupOperations({ db }: { db: Db }) {
  return {
    /**
     * Contacts a label's ship-to company alone can mean (no person named): a contact named after
     * the company (the business as recipient) comes first; otherwise the people at it.
     */
    async findCompanyMatches(subId: string, company: string): Promise<ContactRecord[]> {
      const matchCompany = normalizeForMatch(company)
      if (!matchCompany) return []
      const rows = await repo.findReceiversByMatchCompany(db, subId, matchCompany, MAX_MATCHES)
      const named = rows.filter((r) => r.match_name === matchCompany)
      return (named.length > 0 ? named : rows).map(toRecord)
    },

    /**
     * Receivers whose normalised name equals that of `name` (a decoded ship-to). When `company` is
     * given and some of them match it too, only those; otherwise the company does not narrow, as
     * labels often carry a company the contact record lacks or spells differently.
     */
    async findMatches(subId: string, name: string, company?: string): Promise<ContactRecord[]> {
      const matchName = normalizeForMatch(name)
      if (!matchName) return []
      const rows = await repo.findReceiversByMatchName(db, subId, matchName, MAX_MATCHES)
      const matchCompany = company === undefined ? '' : normalizeForMatch(company)
      const narrowed = matchCompany ? rows.filter((r) => r.match_company === matchCompany) : []
      return (narrowed.length > 0 ? narrowed : rows).map(toRecord)
    },
  }
}
