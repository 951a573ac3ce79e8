import type { DirectoryPerson } from '../../contacts/index.js'

/** Which LDAP attribute fills each contact field (names compare ignoring case, as LDAP's do). */
export interface LdapMapping {
  externalId: string
  name: string
  givenName?: string
  familyName?: string
  email?: string
  phone?: string
  company?: string
  personalId?: string
  unit?: string
}

/** OpenLDAP's defaults (inetOrgPerson); Active Directory: objectGUID, displayName, mail, telephoneNumber, department, employeeID, physicalDeliveryOfficeName. */
export const DEFAULT_MAPPING: LdapMapping = {
  externalId: 'entryUUID',
  name: 'cn',
  givenName: 'givenName',
  familyName: 'sn',
  email: 'mail',
  phone: 'telephoneNumber',
  company: 'o',
  personalId: 'employeeNumber',
  unit: 'roomNumber',
}

export type LdapValue = string | string[] | Buffer | Buffer[]
export type LdapEntry = { dn: string } & Record<string, LdapValue>

/** The attributes a search asks for: the mapped ones and Active Directory's account control. */
export function requestedAttributes(m: LdapMapping): string[] {
  return [
    ...new Set([
      ...Object.values(m).filter((v): v is string => typeof v === 'string' && v !== ''),
      'userAccountControl',
    ]),
  ]
}

/** AD's objectGUID is 16 bytes in mixed-endian order (MS-DTYP §2.3.4): written as its usual text form. */
function guid(b: Buffer): string {
  if (b.length !== 16) return b.toString('hex')
  const h = (i: number, j: number, rev: boolean) => {
    const s = b.subarray(i, j)
    return Buffer.from(rev ? [...s].reverse() : s).toString('hex')
  }
  return `${h(0, 4, true)}-${h(4, 6, true)}-${h(6, 8, true)}-${h(8, 10, false)}-${h(10, 16, false)}`
}

function first(entry: LdapEntry, attribute: string | undefined): string | undefined {
  if (!attribute) return undefined
  const key = Object.keys(entry).find((k) => k.toLowerCase() === attribute.toLowerCase())
  if (!key) return undefined
  const v = entry[key]
  const one = Array.isArray(v) ? v[0] : v
  if (one === undefined) return undefined
  if (Buffer.isBuffer(one)) return attribute.toLowerCase() === 'objectguid' ? guid(one) : one.toString('utf8')
  const t = one.trim()
  return t === '' ? undefined : t
}

/** AD: bit 2 of userAccountControl is ACCOUNTDISABLE. */
const ACCOUNT_DISABLED = 0x2

/**
 * An entry → the person it describes. A mapped attribute the entry lacks clears the contact's
 * field (the directory is the source); an unmapped field is left alone. A disabled AD account is inactive.
 */
export function entryToPerson(entry: LdapEntry, m: LdapMapping): DirectoryPerson {
  const parts = [first(entry, m.givenName), first(entry, m.familyName)].filter(Boolean).join(' ')
  const control = Number(first(entry, 'userAccountControl') ?? '0')
  const person: DirectoryPerson = {
    name: first(entry, m.name) ?? parts,
    externalId: first(entry, m.externalId) ?? null,
    active: (control & ACCOUNT_DISABLED) === 0,
  }
  for (const f of ['email', 'phone', 'company', 'personalId', 'unit'] as const)
    if (m[f]) person[f] = first(entry, m[f]) ?? null
  return person
}
