import { LANGUAGE_PATTERN } from '../../platform/http/schemas.js'
import type * as repo from '../store/contacts.js'
import { CONTACT_TYPES } from '../api/schemas.js'
import { isPlainAddress, PLAIN_ADDRESS_RULE } from './email.js'
import { ROSTER_FIELDS, type RosterRow } from './roster.js'

// A roster row's own rules, before any contact is looked at: its checks, its cells cleaned, its
// status read, the contact column of each field (the import itself: ../roster.ts).

export type RosterOutcome = 'created' | 'updated' | 'deactivated' | 'unchanged' | 'invalid'
export interface RosterRowResult {
  outcome: RosterOutcome
  contactId?: string
  /** Fields the row changes on its contact (an update), for the preview to show. */
  changes?: string[]
  errors: Array<{ field: string; message: string }>
}
export interface RosterReport {
  created: number
  updated: number
  /** Rows that set an active contact inactive (a `status` cell): never a contact the file leaves out. */
  deactivated: number
  unchanged: number
  invalid: number
  rows: RosterRowResult[]
}

const LIMITS: Partial<Record<keyof RosterRow, number>> = {
  name: 200,
  company: 200,
  phone: 50,
  personalId: 100,
  externalId: 200,
  unit: 100,
}
// A `status` cell: what HR and housing exports write for a person who is there, and one who left.
const ACTIVE = new Set(['active', 'yes', 'y', 'true', '1', 'current', 'enabled'])
const INACTIVE = new Set([
  'inactive',
  'no',
  'n',
  'false',
  '0',
  'left',
  'departed',
  'disabled',
  'terminated',
  'moved out',
])
export const statusOf = (v: string | undefined) =>
  v === undefined
    ? undefined
    : ACTIVE.has(v.toLowerCase())
      ? 'active'
      : INACTIVE.has(v.toLowerCase())
        ? 'inactive'
        : null
const LANGUAGE = new RegExp(LANGUAGE_PATTERN)
export const COLUMN: Record<Exclude<keyof RosterRow, 'contactType' | 'status'>, keyof repo.ContactRow> = {
  name: 'name',
  email: 'email',
  company: 'company',
  phone: 'phone',
  personalId: 'personal_id',
  language: 'language',
  externalId: 'external_id',
  unit: 'unit',
}

/** The row's own checks, before any contact is looked at. */
export function rowErrors(r: RosterRow): RosterRowResult['errors'] {
  const errors: RosterRowResult['errors'] = []
  if (!r.name) errors.push({ field: 'name', message: 'A name is required.' })
  for (const [f, max] of Object.entries(LIMITS) as Array<[keyof RosterRow, number]>)
    if ((r[f]?.length ?? 0) > max) errors.push({ field: f, message: `At most ${max} characters.` })
  if (r.email !== undefined && !isPlainAddress(r.email))
    errors.push({ field: 'email', message: `Must be ${PLAIN_ADDRESS_RULE}.` })
  if (r.contactType !== undefined && !(CONTACT_TYPES as readonly string[]).includes(r.contactType.toUpperCase()))
    errors.push({ field: 'contactType', message: `One of ${CONTACT_TYPES.join(', ')}.` })
  if (r.language !== undefined && !LANGUAGE.test(r.language))
    errors.push({ field: 'language', message: 'A language such as fr or pt-BR.' })
  if (statusOf(r.status) === null)
    errors.push({ field: 'status', message: 'active or inactive (also yes/no, true/false, left).' })
  return errors
}

/** Text cells trimmed, empty ones absent: an empty cell leaves the stored value as it is. */
export function clean(r: RosterRow): RosterRow {
  const out: RosterRow = {}
  for (const f of ROSTER_FIELDS) {
    const v = r[f]?.trim()
    if (v) out[f] = f === 'contactType' ? v.toUpperCase() : v
  }
  return out
}
