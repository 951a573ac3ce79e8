import { registerErrors, ValidationErrors } from '../../platform/kit/errors.js'
import type { DataType, FieldStatus } from '../api/schemas.js'

export const CUSTOM_FIELD_VALUE_ERRORS = registerErrors({
  CUSTOM_FIELD_VALUE_INVALID: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'CFD-4001',
    message: 'The custom field value does not fit its definition.',
  },
  CUSTOM_FIELD_REQUIRED: {
    status: 400,
    errorCode: 'validation_error',
    additionalCode: 'CFD-4002',
    message: 'A required custom field has no value.',
  },
})

/** A custom field definition as the packages service reads it. */
export interface CustomFieldDef {
  customFieldId: string
  name: string
  status: FieldStatus
  dataType: DataType
  required: boolean
  options?: string[]
}

export interface CustomFieldValue {
  customFieldId: string
  value: string
}

export const MAX_TEXT_LENGTH = 1000

const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
// RFC 3339 date-time: the zone is required, so the instant is unambiguous.
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,9})?)?(Z|[+-](\d{2}):(\d{2}))$/

function isCalendarDate(s: string): boolean {
  const m = DATE.exec(s)
  if (!m) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const dt = new Date(Date.UTC(y, mo - 1, d))
  return dt.getUTCFullYear() === y && dt.getUTCMonth() === mo - 1 && dt.getUTCDate() === d
}

function isIsoDateOrTimestamp(s: string): boolean {
  if (isCalendarDate(s)) return true
  const m = TIMESTAMP.exec(s)
  if (!m || !isCalendarDate(m[1]!)) return false
  const within = (v: string | undefined, max: number) => v === undefined || Number(v) <= max
  return within(m[2], 23) && within(m[3], 59) && within(m[4], 59) && within(m[6], 23) && within(m[7], 59)
}

/** A JS number as a plain decimal string (no exponent: 1e21 → "1000000000000000000000"). */
function decimalString(n: number): string {
  const s = String(n)
  return /e/i.test(s) ? n.toLocaleString('en-US', { useGrouping: false, maximumSignificantDigits: 17 }) : s
}

type Coerced = { ok: true; value: string } | { ok: false; description: string }

/** One input value against its definition; `""` means "no value" (the entry is removed). */
function coerce(def: CustomFieldDef, raw: unknown): Coerced {
  const label = `"${def.name}"`
  if (typeof raw !== 'string' && typeof raw !== 'number' && typeof raw !== 'boolean') {
    return { ok: false, description: `${label} takes a string, number or boolean value.` }
  }
  if (typeof raw === 'number' && !Number.isFinite(raw))
    return { ok: false, description: `${label} must be a finite number.` }
  const s = typeof raw === 'string' ? raw.trim() : typeof raw === 'number' ? decimalString(raw) : String(raw)
  if (s === '') return { ok: true, value: '' }
  switch (def.dataType) {
    case 'TEXT':
      return s.length <= MAX_TEXT_LENGTH
        ? { ok: true, value: s }
        : { ok: false, description: `${label} must be at most ${MAX_TEXT_LENGTH} characters.` }
    case 'NUMBER':
      if (typeof raw === 'boolean' || !DECIMAL.test(s))
        return { ok: false, description: `${label} must be a decimal number, e.g. 42 or -3.5.` }
      return { ok: true, value: s.replace(/^\+/, '') }
    case 'DATE':
      if (typeof raw !== 'string' || !isIsoDateOrTimestamp(s))
        return {
          ok: false,
          description: `${label} must be a date YYYY-MM-DD or an ISO 8601 timestamp with a zone (2024-11-27T18:30:00Z).`,
        }
      return { ok: true, value: s }
    case 'BOOLEAN': {
      const b = s.toLowerCase()
      if (typeof raw === 'number' || (b !== 'true' && b !== 'false'))
        return { ok: false, description: `${label} must be true or false.` }
      return { ok: true, value: b }
    }
    case 'LIST': {
      const option = def.options?.find((o) => o.toLowerCase() === s.toLowerCase())
      if (typeof raw === 'boolean' || option === undefined) {
        const shown = (def.options ?? []).slice(0, 20).join(', ')
        return {
          ok: false,
          description: `${label} must be one of: ${shown}${(def.options?.length ?? 0) > 20 ? ', …' : ''}.`,
        }
      }
      return { ok: true, value: option }
    }
  }
}

/**
 * Merges `input` over `existing` (an entry given replaces the stored one with the same id; `""`
 * removes it) and checks the result against the definitions. Input entries are validated fully:
 * the id must name a live ACTIVE definition and the value fit its type. Stored entries not named in
 * the input are carried over as they are: they were valid when written, and a definition changed
 * (or deleted) since must not block unrelated updates. Every ACTIVE required definition must end
 * up with a value. All problems are thrown at once as ValidationErrors; values are stored as strings
 * (numbers as plain decimals, booleans as "true"/"false", LIST values in the option's spelling).
 */
export function checkCustomFieldValues(
  defs: readonly CustomFieldDef[],
  input: Array<{ customFieldId: string; value: unknown }> | undefined,
  existing: Array<{ customFieldId: string; value: string }>,
  fieldPrefix: string,
): CustomFieldValue[] {
  const byId = new Map(defs.map((d) => [d.customFieldId, d]))
  const problems: Array<{ field: string; description: string; code: string }> = []
  const invalid = (field: string, description: string) =>
    problems.push({ field, description, code: CUSTOM_FIELD_VALUE_ERRORS.CUSTOM_FIELD_VALUE_INVALID })
  // Map keeps insertion order, and a replaced entry keeps its place.
  const merged = new Map(existing.map((e) => [e.customFieldId, e.value]))
  const seen = new Set<string>()
  const failed = new Set<string>()

  for (const [i, entry] of (input ?? []).entries()) {
    const at = `${fieldPrefix}[${i}]`
    const id = entry.customFieldId
    const def = byId.get(id)
    if (seen.has(id)) {
      invalid(`${at}.customFieldId`, `Custom field ${id} is given more than once.`)
      continue
    }
    seen.add(id)
    if (!def) {
      invalid(`${at}.customFieldId`, `No custom field ${id}.`)
      continue
    }
    if (def.status !== 'ACTIVE') {
      failed.add(id)
      invalid(`${at}.customFieldId`, `Custom field "${def.name}" is inactive and takes no values.`)
      continue
    }
    const result = coerce(def, entry.value)
    if (!result.ok) {
      failed.add(id)
      invalid(`${at}.value`, result.description)
    } else if (result.value === '') {
      merged.delete(id)
    } else {
      merged.set(id, result.value)
    }
  }

  for (const def of defs) {
    if (def.status === 'ACTIVE' && def.required && !failed.has(def.customFieldId) && !merged.get(def.customFieldId)) {
      problems.push({
        field: fieldPrefix,
        description: `Custom field "${def.name}" (${def.customFieldId}) is required.`,
        code: CUSTOM_FIELD_VALUE_ERRORS.CUSTOM_FIELD_REQUIRED,
      })
    }
  }
  if (problems.length > 0) throw new ValidationErrors(problems)
  return [...merged].map(([customFieldId, value]) => ({ customFieldId, value }))
}
