import type { DirectoryContacts, DirectoryPerson } from '../contacts/index.js'
import { personProblems } from '../contacts/index.js'
import { ScimError } from './model/scim-error.js'
import { parseScimFilter, type ScimResourceType } from './model/scim-filter.js'
import { applyPatch, patchOperations, type PatchOp } from './model/scim-patch.js'
import { DEFAULT_PAGE, LIST_SCHEMA, MAX_PAGE } from './model/scim-schemas.js'
import { groupToPerson, groupToResource, memberIds, personToUser, userToPerson } from './model/scim-user.js'

type Json = Record<string, unknown>

export interface ListQuery {
  filter?: string
  startIndex?: number
  count?: number
  attributes?: string
  excludedAttributes?: string
}

export interface ListResponse {
  schemas: string[]
  totalResults: number
  startIndex: number
  itemsPerPage: number
  Resources: Json[]
}

const names = (list: string | undefined) =>
  new Set(
    (list ?? '')
      .split(',')
      .map((a) => a.trim().toLowerCase())
      .filter(Boolean),
  )
/** Never left out (RFC 7643 §7: returned "always"). */
const ALWAYS = new Set(['id', 'schemas', 'meta'])

/** `attributes` / `excludedAttributes` (RFC 7644 §3.4.2.5), on top-level attributes. */
function project(resource: Json, q: Pick<ListQuery, 'attributes' | 'excludedAttributes'>): Json {
  const only = names(q.attributes)
  const without = names(q.excludedAttributes)
  if (only.size === 0 && without.size === 0) return resource
  const out: Json = {}
  for (const [k, v] of Object.entries(resource)) {
    const key = k.toLowerCase()
    if (ALWAYS.has(key) || (only.size > 0 ? only.has(key) : !without.has(key))) out[k] = v
  }
  return out
}

function problemsToScim(p: DirectoryPerson, field: Partial<Record<keyof DirectoryPerson, string>>): void {
  const problems = personProblems(p, field)
  if (problems.length > 0)
    throw new ScimError(400, 'invalidValue', problems.map((x) => `${x.field}: ${x.description}`).join(' '))
}

const USER_FIELDS: Partial<Record<keyof DirectoryPerson, string>> = {
  name: 'displayName',
  email: 'emails',
  phone: 'phoneNumbers',
  personalId: 'employeeNumber',
  company: 'organization',
}

export type ScimService = ReturnType<typeof createScimService>

/**
 * The SCIM resources over contacts (RFC 7644 §3): Users are recipients, Groups are group contacts
 * whose members are their delegates. Nothing is ever deleted: `active: false` and DELETE
 * deactivate, so a leaver's parcels keep their history and are flagged.
 */
export function createScimService(deps: { contacts: DirectoryContacts }) {
  const { contacts } = deps

  async function list(subId: string, type: ScimResourceType, base: string, q: ListQuery): Promise<ListResponse> {
    const where = parseScimFilter(type, q.filter)
    const startIndex = Math.max(1, q.startIndex ?? 1)
    const count = Math.min(MAX_PAGE, Math.max(0, q.count ?? DEFAULT_PAGE))
    const { contacts: found, total } = await contacts.queryDirectory(subId, type === 'User' ? 'user' : 'group', where, {
      offset: startIndex - 1,
      limit: count,
    })
    let resources: Json[]
    if (type === 'User') resources = found.map((c) => personToUser(c, base))
    else {
      const wantMembers = !names(q.excludedAttributes).has('members')
      const members = wantMembers
        ? await contacts.delegatesOf(
            subId,
            found.map((c) => c.contactId),
          )
        : undefined
      resources = found.map((c) => groupToResource(c, members?.get(c.contactId), base))
    }
    return {
      schemas: [LIST_SCHEMA],
      totalResults: total,
      startIndex,
      itemsPerPage: resources.length,
      Resources: resources.map((r) => project(r, q)),
    }
  }

  async function group(subId: string, id: string, base: string, q: ListQuery = {}): Promise<Json> {
    const c = await contacts.getDirectoryContact(subId, id, { group: true })
    const members = names(q.excludedAttributes).has('members')
      ? undefined
      : (await contacts.delegatesOf(subId, [id])).get(id)
    return project(groupToResource(c, members, base), q)
  }

  /** The group patch's member operations, as one change of delegates; the rest patch the resource. */
  function splitGroupOps(ops: PatchOp[]): {
    members: { set?: string[]; add: string[]; remove: string[] }
    rest: PatchOp[]
  } {
    const members: { set?: string[]; add: string[]; remove: string[] } = { add: [], remove: [] }
    const rest: PatchOp[] = []
    for (const op of ops) {
      const path = op.path?.trim()
      const filtered = path ? /^members\[\s*value\s+eq\s+"([^"]+)"\s*\]$/i.exec(path) : null
      if (filtered && op.op === 'remove') members.remove.push(filtered[1]!)
      else if (path?.toLowerCase() === 'members') {
        const ids = op.value === undefined ? [] : memberIds({ members: op.value })
        if (op.op === 'add') members.add.push(...ids)
        // Entra removes members by value (`"path": "members", "value": [{"value": id}]`); no value: all.
        else if (op.op === 'remove') {
          if (op.value === undefined) members.set = []
          else members.remove.push(...ids)
        } else members.set = ids
      } else rest.push(op)
    }
    return { members, rest }
  }

  return {
    listUsers: (subId: string, base: string, q: ListQuery) => list(subId, 'User', base, q),
    listGroups: (subId: string, base: string, q: ListQuery) => list(subId, 'Group', base, q),

    async getUser(subId: string, id: string, base: string, q: ListQuery = {}): Promise<Json> {
      return project(personToUser(await contacts.getDirectoryContact(subId, id), base), q)
    },

    async createUser(subId: string, body: Json, base: string): Promise<Json> {
      const p = userToPerson(body)
      problemsToScim(p, USER_FIELDS)
      return personToUser(await contacts.provision(subId, p, 'scim'), base)
    },

    async replaceUser(subId: string, id: string, body: Json, base: string): Promise<Json> {
      const p = userToPerson(body)
      problemsToScim(p, USER_FIELDS)
      return personToUser(await contacts.replace(subId, id, p, 'scim'), base)
    },

    async patchUser(subId: string, id: string, body: unknown, base: string): Promise<Json> {
      const ops = patchOperations(body)
      const changed = await contacts.modify(
        subId,
        id,
        (current) => {
          const p = userToPerson(applyPatch(personToUser(current, base), ops))
          problemsToScim(p, USER_FIELDS)
          return p
        },
        'scim',
      )
      return personToUser(changed, base)
    },

    /** DELETE deactivates (the contact and its parcels' history stay). */
    async deactivateUser(subId: string, id: string, base: string): Promise<void> {
      await contacts.modify(
        subId,
        id,
        (current) => ({ ...userToPerson(personToUser(current, base)), active: false }),
        'scim',
      )
    },

    getGroup: group,

    async createGroup(subId: string, body: Json, base: string): Promise<Json> {
      const p = groupToPerson(body)
      const members = memberIds(body)
      problemsToScim(p, { name: 'displayName' })
      const c = await contacts.provision(subId, p, 'scim', { group: true })
      if (members.length > 0) await contacts.changeDelegates(subId, c.contactId, { set: members }, 'members')
      return group(subId, c.contactId, base)
    },

    async replaceGroup(subId: string, id: string, body: Json, base: string): Promise<Json> {
      const p = groupToPerson(body)
      problemsToScim(p, { name: 'displayName' })
      await contacts.getDirectoryContact(subId, id, { group: true })
      await contacts.changeDelegates(subId, id, { set: memberIds(body) }, 'members')
      await contacts.replace(subId, id, p, 'scim', { group: true })
      return group(subId, id, base)
    },

    /** Member operations first (they are checked against the contacts), then the group's own attributes. */
    async patchGroup(subId: string, id: string, body: unknown, base: string): Promise<Json> {
      const ops = patchOperations(body)
      const current = groupToResource(await contacts.getDirectoryContact(subId, id, { group: true }), undefined, base)
      const { members, rest } = splitGroupOps(ops)
      const p = rest.length > 0 ? groupToPerson(applyPatch(current, rest)) : undefined
      if (p) problemsToScim(p, { name: 'displayName' })
      if (members.set || members.add.length > 0 || members.remove.length > 0)
        await contacts.changeDelegates(subId, id, members, 'members')
      if (p) await contacts.replace(subId, id, p, 'scim', { group: true })
      return group(subId, id, base)
    },

    async deactivateGroup(subId: string, id: string): Promise<void> {
      const c = await contacts.getDirectoryContact(subId, id, { group: true })
      await contacts.changeDelegates(subId, id, { set: [] }, 'members')
      await contacts.replace(subId, id, { ...c, active: false }, 'scim', { group: true })
    },
  }
}
