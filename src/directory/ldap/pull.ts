import { Client } from 'ldapts'
import type { LdapEntry } from '../model/ldap-mapping.js'

export interface LdapTarget {
  url: string
  bindDn: string
  bindPassword: string
  baseDn: string
  filter: string
  attributes: string[]
}

/** Entries per page (RFC 2696 simple paged results): under AD's default MaxPageSize of 1,000. */
export const PAGE_SIZE = 500
const TIMEOUT_MS = 30_000

/**
 * Every entry under the base DN that the filter selects, read page by page (RFC 2696) so a
 * directory's size limit does not cut the list short; binary attributes (objectGUID) as Buffers.
 */
export async function pullEntries(t: LdapTarget): Promise<LdapEntry[]> {
  const client = new Client({ url: t.url, timeout: TIMEOUT_MS, connectTimeout: 10_000 })
  try {
    await client.bind(t.bindDn, t.bindPassword)
    const { searchEntries } = await client.search(t.baseDn, {
      scope: 'sub',
      filter: t.filter,
      attributes: t.attributes,
      explicitBufferAttributes: ['objectGUID'],
      paged: { pageSize: PAGE_SIZE },
    })
    return searchEntries
  } finally {
    await client.unbind().catch(() => undefined)
  }
}
