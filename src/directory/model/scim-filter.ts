import { parse, type Filter } from 'scim2-parse-filter'
import type { DirectoryCondition, DirectoryField } from '../../contacts/index.js'
import { ScimError } from './scim-error.js'
import { GROUP_SCHEMA, USER_SCHEMA } from './scim-schemas.js'

export type ScimResourceType = 'User' | 'Group'

// Attribute names compare ignoring case (RFC 7643 §2.1); a fully qualified name loses its schema.
const ATTRIBUTES: Record<ScimResourceType, Record<string, DirectoryField>> = {
  User: {
    username: 'userName',
    externalid: 'externalId',
    id: 'contactId',
    emails: 'email',
    'emails.value': 'email',
    displayname: 'name',
    'name.formatted': 'name',
    active: 'active',
  },
  Group: {
    displayname: 'name',
    externalid: 'externalId',
    id: 'contactId',
    'members.value': 'member',
    members: 'member',
  },
}
const PREFIX: Record<ScimResourceType, string> = { User: `${USER_SCHEMA}:`, Group: `${GROUP_SCHEMA}:` }

/** A sub-attribute filter mailroom ignores: a contact has one email, so `emails[type eq "work"]` holds of it. */
const IGNORED_VALUE_FILTER = new Set(['type', 'primary'])

function field(type: ScimResourceType, attrPath: string): DirectoryField {
  let path = attrPath.toLowerCase()
  const prefix = PREFIX[type].toLowerCase()
  if (path.startsWith(prefix)) path = path.slice(prefix.length)
  const f = ATTRIBUTES[type][path]
  if (!f) throw new ScimError(400, 'invalidFilter', `Filtering on ${attrPath} is not supported.`)
  return f
}

function translate(type: ScimResourceType, f: Filter): DirectoryCondition | true {
  switch (f.op) {
    case 'and':
    case 'or': {
      const parts = f.filters.map((x) => translate(type, x))
      const kept = parts.filter((p): p is DirectoryCondition => p !== true)
      if (f.op === 'or' && kept.length < parts.length) return true
      if (kept.length === 0) return true
      return kept.length === 1 ? kept[0]! : { op: f.op, of: kept }
    }
    case 'not': {
      const inner = translate(type, f.filter)
      if (inner === true) throw new ScimError(400, 'invalidFilter', 'This not() would match nothing.')
      return { op: 'not', of: inner }
    }
    case '[]': {
      const target = field(type, f.attrPath)
      const v = f.valFilter
      if (
        target === 'member' &&
        v.op === 'eq' &&
        v.attrPath.toLowerCase() === 'value' &&
        typeof v.compValue === 'string'
      )
        return { op: 'eq', field: 'member', value: v.compValue }
      if ('attrPath' in v && IGNORED_VALUE_FILTER.has(v.attrPath.toLowerCase()) && target === 'email') return true
      throw new ScimError(400, 'invalidFilter', `Filtering ${f.attrPath}[…] this way is not supported.`)
    }
    case 'pr': {
      const target = field(type, f.attrPath)
      if (target === 'active' || target === 'member' || target === 'contactId') return true
      return { op: 'pr', field: target }
    }
    case 'gt':
    case 'ge':
    case 'lt':
    case 'le':
      throw new ScimError(400, 'invalidFilter', `The ${f.op} operator is not supported on ${f.attrPath}.`)
    default: {
      const target = field(type, f.attrPath)
      if (target === 'active') {
        if (typeof f.compValue !== 'boolean' || (f.op !== 'eq' && f.op !== 'ne'))
          throw new ScimError(400, 'invalidFilter', 'active compares with eq or ne to true or false.')
        return { op: f.op, field: 'active', value: f.compValue }
      }
      if (typeof f.compValue !== 'string')
        throw new ScimError(400, 'invalidFilter', `${f.attrPath} compares to a quoted string.`)
      if (target === 'member') {
        if (f.op !== 'eq') throw new ScimError(400, 'invalidFilter', 'members.value compares with eq.')
        return { op: 'eq', field: 'member', value: f.compValue }
      }
      return { op: f.op, field: target, value: f.compValue }
    }
  }
}

/**
 * A `filter` query parameter (RFC 7644 §3.4.2.2) → the contacts query, or undefined for "all".
 * What the providers send is covered (Okta: `userName eq`, Entra: `userName eq`, `externalId eq`,
 * `displayName eq`, `id eq … and members[value eq …]`); other attributes and the ordering
 * operators are a 400 `invalidFilter`.
 */
export function parseScimFilter(type: ScimResourceType, filter: string | undefined): DirectoryCondition | undefined {
  if (filter === undefined || filter.trim() === '') return undefined
  let ast: Filter
  try {
    ast = parse(filter)
  } catch (err) {
    throw new ScimError(400, 'invalidFilter', `Not a SCIM filter: ${(err as Error).message}`)
  }
  const c = translate(type, ast)
  return c === true ? undefined : c
}
