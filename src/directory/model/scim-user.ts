import type { DirectoryContact, DirectoryPerson } from '../../contacts/index.js'
import { ENTERPRISE_SCHEMA, GROUP_SCHEMA, MAILROOM_SCHEMA, USER_SCHEMA } from './scim-schemas.js'
import { ScimError } from './scim-error.js'

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)
const text = (v: unknown): string | null => (typeof v === 'string' && v.trim() ? v.trim() : null)

/** Entra sends booleans as "True"/"False" in some PATCH requests: read both (RFC 7643 §2.3.2 says JSON true/false). */
export function scimBoolean(v: unknown, attribute: string): boolean {
  if (typeof v === 'boolean') return v
  if (typeof v === 'string' && /^(true|false)$/i.test(v)) return v.toLowerCase() === 'true'
  throw new ScimError(400, 'invalidValue', `${attribute} must be true or false.`)
}

/** The value of a multi-valued attribute mailroom keeps: the primary, else the work one, else the first. */
function pick(list: unknown): string | null {
  if (!Array.isArray(list)) return null
  const items = list.filter(isObject)
  const primary = items.find((i) => i.primary === true || i.primary === 'True' || i.primary === 'true')
  const chosen = primary ?? items.find((i) => i.type === 'work') ?? items[0]
  return chosen ? text(chosen.value) : null
}

// RFC 7643 §5: a language tag ("fr", "pt-BR"); locale "en_US" is read as "en-US".
const LANGUAGE = /^[a-z]{2,3}(-[A-Z]{2})?$/
function language(v: unknown): string | null {
  const t = text(v)?.replace('_', '-')
  if (!t) return null
  const [l, r] = t.split('-')
  const tag = r ? `${l!.toLowerCase()}-${r.toUpperCase()}` : l!.toLowerCase()
  return LANGUAGE.test(tag) ? tag : null
}

/** Attributes the service sets or must never keep. */
const NOT_KEPT = ['id', 'meta', 'password', 'groups'] as const

/**
 * A SCIM User → the contact it describes. Core attributes are the provider's: an absent one
 * clears the contact's. Extension attributes (enterprise, mailroom) and the language are written
 * only when the provider sends them, so a room a clerk typed is not wiped by a provider that
 * knows nothing of rooms. The password, if any, is dropped unread.
 */
export function userToPerson(resource: Json): DirectoryPerson {
  const userName = text(resource.userName)
  if (!userName) throw new ScimError(400, 'invalidValue', 'userName is required.')
  const name = isObject(resource.name) ? resource.name : {}
  const parts = [text(name.givenName), text(name.familyName)].filter(Boolean).join(' ')
  const person: DirectoryPerson = {
    userName,
    name: text(resource.displayName) ?? text(name.formatted) ?? (parts || userName),
    externalId: text(resource.externalId),
    email: pick(resource.emails),
    phone: pick(resource.phoneNumbers),
    active: resource.active === undefined || resource.active === null ? true : scimBoolean(resource.active, 'active'),
  }
  const nick = text(resource.nickName)
  const lang = resource.preferredLanguage ?? resource.locale
  if (lang !== undefined) person.language = language(resource.preferredLanguage) ?? language(resource.locale)
  const ent = resource[ENTERPRISE_SCHEMA]
  if (isObject(ent)) {
    person.company = text(ent.organization) ?? text(ent.department)
    person.personalId = text(ent.employeeNumber)
  }
  const mr = resource[MAILROOM_SCHEMA]
  if (isObject(mr)) {
    person.unit = text(mr.unit)
    const aliases = Array.isArray(mr.aliases) ? mr.aliases.map(text).filter((a): a is string => a !== null) : []
    person.aliases = [...new Set([...(nick ? [nick] : []), ...aliases])]
    person.moveInDate = text(mr.moveInDate)
    person.moveOutDate = text(mr.moveOutDate)
  } else if (nick) person.aliases = [nick]
  const kept: Json = { ...resource }
  for (const k of NOT_KEPT) delete kept[k]
  person.scimAttributes = kept
  return person
}

const meta = (c: DirectoryContact, base: string, resourceType: 'User' | 'Group') => ({
  resourceType,
  created: c.createdAt.toISOString(),
  lastModified: c.updatedAt.toISOString(),
  location: `${base}/${resourceType}s/${c.contactId}`,
  version: `W/"${c.updatedAt.getTime()}"`,
})

/**
 * A contact as a SCIM User: what the provider sent, with what mailroom holds laid over it (a
 * clerk's correction of an email or a name shows, and the provider's next PUT decides).
 */
export function personToUser(c: DirectoryContact, base: string): Json {
  const attrs: Json = { ...(c.scimAttributes ?? {}) }
  const schemas = new Set<string>([USER_SCHEMA])
  if (isObject(attrs[ENTERPRISE_SCHEMA])) schemas.add(ENTERPRISE_SCHEMA)
  const out: Json = { ...attrs, id: c.contactId, userName: c.userName ?? '', displayName: c.name, active: c.active }
  if (c.externalId) out.externalId = c.externalId
  else delete out.externalId
  if (!isObject(attrs.name)) out.name = { formatted: c.name }
  if ((c.email ?? null) !== pick(attrs.emails))
    out.emails = c.email ? [{ value: c.email, type: 'work', primary: true }] : undefined
  if ((c.phone ?? null) !== pick(attrs.phoneNumbers))
    out.phoneNumbers = c.phone ? [{ value: c.phone, type: 'work', primary: true }] : undefined
  if (c.language) out.preferredLanguage = c.language
  const mailroom: Json = {}
  if (c.unit) mailroom.unit = c.unit
  if (c.aliases && c.aliases.length > 0) mailroom.aliases = c.aliases
  if (c.moveInDate) mailroom.moveInDate = c.moveInDate
  if (c.moveOutDate) mailroom.moveOutDate = c.moveOutDate
  if (Object.keys(mailroom).length > 0) {
    out[MAILROOM_SCHEMA] = mailroom
    schemas.add(MAILROOM_SCHEMA)
  } else delete out[MAILROOM_SCHEMA]
  out.schemas = [...schemas]
  out.meta = meta(c, base, 'User')
  for (const k of Object.keys(out)) if (out[k] === undefined) delete out[k]
  return out
}

/** A SCIM Group → the group contact it describes (members are handled apart: they are delegates). */
export function groupToPerson(resource: Json): DirectoryPerson {
  const name = text(resource.displayName)
  if (!name) throw new ScimError(400, 'invalidValue', 'displayName is required.')
  const kept: Json = { ...resource }
  for (const k of [...NOT_KEPT, 'members']) delete kept[k]
  return { name, externalId: text(resource.externalId), active: true, scimAttributes: kept }
}

/** The member ids of a Group body: `members[].value`. */
export function memberIds(resource: Json): string[] {
  if (resource.members === undefined || resource.members === null) return []
  if (!Array.isArray(resource.members)) throw new ScimError(400, 'invalidValue', 'members must be a list.')
  return resource.members.map((m) => {
    const v = isObject(m) ? text(m.value) : null
    if (!v) throw new ScimError(400, 'invalidValue', 'Each member needs a value (a User id).')
    return v
  })
}

export function groupToResource(c: DirectoryContact, members: string[] | undefined, base: string): Json {
  const out: Json = {
    ...(c.scimAttributes ?? {}),
    schemas: [GROUP_SCHEMA],
    id: c.contactId,
    displayName: c.name,
    meta: meta(c, base, 'Group'),
  }
  if (c.externalId) out.externalId = c.externalId
  if (members) out.members = members.map((value) => ({ value, $ref: `${base}/Users/${value}` }))
  return out
}
