import { LANGUAGE_PATTERN } from '../../platform/http/schemas.js'
import type { DirectoryRow } from '../store/directory.js'
import { isPlainAddress, PLAIN_ADDRESS_RULE } from './email.js'
import { normalizeForMatch } from './normalize.js'

// A person as a directory (SCIM, LDAP) describes it: its checks and the contact columns it sets.
export type DirectorySource = 'scim' | 'ldap'

/** A person or group as a directory (SCIM, LDAP) describes it, mapped to contact fields. */
export interface DirectoryPerson {
  name: string
  userName?: string | null
  externalId?: string | null
  email?: string | null
  phone?: string | null
  company?: string | null
  personalId?: string | null
  unit?: string | null
  aliases?: string[]
  language?: string | null
  active: boolean
  moveInDate?: string | null
  moveOutDate?: string | null
  /** SCIM: the resource as sent, less mapped attributes and any password. */
  scimAttributes?: Record<string, unknown> | null
}

export interface DirectoryContact extends DirectoryPerson {
  contactId: string
  group: boolean
  source: string
  createdAt: Date
  updatedAt: Date
}

const LIMITS: Array<[keyof DirectoryPerson, number]> = [
  ['name', 200],
  ['userName', 200],
  ['externalId', 200],
  ['company', 200],
  ['phone', 50],
  ['personalId', 100],
  ['unit', 100],
  ['email', 254],
]
const LANGUAGE = new RegExp(LANGUAGE_PATTERN)
const DATE = /^\d{4}-\d{2}-\d{2}$/

/** Every problem of a person at once, named by the directory's own attribute (`names` maps them). */
export function personProblems(
  p: DirectoryPerson,
  names: Partial<Record<keyof DirectoryPerson, string>> = {},
): Array<{ field: string; description: string }> {
  const out: Array<{ field: string; description: string }> = []
  const at = (f: keyof DirectoryPerson) => names[f] ?? f
  if (!p.name.trim()) out.push({ field: at('name'), description: 'A name is required.' })
  for (const [f, max] of LIMITS) {
    const v = p[f]
    if (typeof v === 'string' && v.length > max) out.push({ field: at(f), description: `At most ${max} characters.` })
  }
  if (p.email && !isPlainAddress(p.email))
    out.push({ field: at('email'), description: `Must be ${PLAIN_ADDRESS_RULE}.` })
  if ((p.aliases?.length ?? 0) > 10) out.push({ field: at('aliases'), description: 'At most 10 aliases.' })
  for (const a of p.aliases ?? [])
    if (a.length < 1 || a.length > 100) out.push({ field: at('aliases'), description: 'Each alias 1–100 characters.' })
  for (const f of ['moveInDate', 'moveOutDate'] as const) {
    const v = p[f]
    if (v && (!DATE.test(v) || Number.isNaN(Date.parse(v))))
      out.push({ field: at(f), description: 'A date YYYY-MM-DD.' })
  }
  return out
}

export const isoDay = (d: Date | string | null): string | null =>
  d === null ? null : typeof d === 'string' ? d.slice(0, 10) : d.toISOString().slice(0, 10)

export function toDirectoryContact(r: DirectoryRow): DirectoryContact {
  return {
    contactId: r.contact_id,
    name: r.name,
    userName: r.user_name,
    externalId: r.external_id,
    email: r.email,
    phone: r.phone,
    company: r.company,
    personalId: r.personal_id,
    unit: r.unit,
    aliases: r.aliases,
    language: r.language && LANGUAGE.test(r.language) ? r.language : null,
    active: r.status === 'active',
    moveInDate: isoDay(r.move_in),
    moveOutDate: isoDay(r.move_out),
    scimAttributes: r.scim_attributes,
    group: r.is_group,
    source: r.source,
    createdAt: new Date(r.created_at),
    updatedAt: new Date(r.updated_at),
  }
}

/** The columns a person sets. Absent (undefined) optional fields keep what is stored. */
export function columnsOf(p: DirectoryPerson, group: boolean, source: DirectorySource) {
  const cols: Record<string, unknown> = {
    name: p.name.trim(),
    match_name: normalizeForMatch(p.name),
    status: p.active ? 'active' : 'inactive',
    is_group: group,
    source,
  }
  const set = (col: string, v: unknown) => {
    if (v !== undefined) cols[col] = v
  }
  set('user_name', p.userName)
  set('external_id', p.externalId)
  set('email', p.email)
  set('phone', p.phone)
  set('company', p.company)
  if (p.company !== undefined) cols.match_company = p.company ? normalizeForMatch(p.company) : null
  set('personal_id', p.personalId)
  set('unit', p.unit)
  set('aliases', p.aliases)
  set('language', p.language)
  set('move_in', p.moveInDate)
  set('move_out', p.moveOutDate)
  if (p.scimAttributes !== undefined)
    cols.scim_attributes = p.scimAttributes === null ? null : JSON.stringify(p.scimAttributes)
  return cols
}
