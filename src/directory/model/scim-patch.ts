import { patchBodyValidation, scimPatch, type ScimPatchOperation } from 'scim-patch'
import { ScimError } from './scim-error.js'
import { ENTERPRISE_SCHEMA, MAILROOM_SCHEMA, USER_SCHEMA } from './scim-schemas.js'

type Json = Record<string, unknown>
const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

export interface PatchOp {
  op: 'add' | 'replace' | 'remove'
  path?: string
  value?: unknown
}

const EXTENSIONS = [ENTERPRISE_SCHEMA, MAILROOM_SCHEMA]

/**
 * A PatchOp body (RFC 7644 §3.5.2) → its operations, in the forms scim-patch applies, with what
 * the providers send besides the RFC's letter: Entra's capitalised `"Replace"`, a path-less
 * add/replace whose value names attributes by dotted or schema-qualified paths
 * (`{"name.givenName": "Ann"}`, `{"urn:…:enterprise:2.0:User:department": "Sales"}`), which
 * becomes one operation per attribute.
 */
export function patchOperations(body: unknown): PatchOp[] {
  if (!isObject(body)) throw new ScimError(400, 'invalidSyntax', 'The body must be a PatchOp object.')
  const ops = Array.isArray(body.Operations)
    ? (body.Operations as unknown[]).map((o: unknown) =>
        isObject(o) && typeof o.op === 'string' ? { ...o, op: o.op.toLowerCase() } : o,
      )
    : body.Operations
  try {
    patchBodyValidation({ ...body, Operations: ops } as never)
  } catch (err) {
    throw new ScimError(400, 'invalidSyntax', (err as Error).message)
  }
  const out: PatchOp[] = []
  for (const o of ops as PatchOp[]) {
    if (o.path === undefined && o.op !== 'remove' && isObject(o.value)) {
      for (const [k, v] of Object.entries(o.value)) {
        if (EXTENSIONS.includes(k) && isObject(v))
          for (const [ek, ev] of Object.entries(v)) out.push({ op: o.op, path: `${k}:${ek}`, value: ev })
        else out.push({ op: o.op, path: k, value: v })
      }
    } else out.push({ op: o.op, path: o.path, value: o.value })
  }
  return out
}

/** `urn:…:User:attr` → `attr`; an extension's attribute → [extension, attribute path]. */
function splitPath(path: string): { extension?: string; path: string } {
  const core = `${USER_SCHEMA}:`
  if (path.toLowerCase().startsWith(core.toLowerCase())) return { path: path.slice(core.length) }
  for (const ext of EXTENSIONS)
    if (path.startsWith(`${ext}:`)) return { extension: ext, path: path.slice(ext.length + 1) }
  return { path }
}

/** Attribute names in one path: `urn:…:enterprise:2.0:User:manager.value` is 2, ours go no deeper. */
const MAX_PATH_SEGMENTS = 5

/** Names that reach an object's prototype: never a SCIM attribute, whoever sends them. */
const FORBIDDEN = new Set(['__proto__', 'constructor', 'prototype'])

/** A path's attribute names: filters (`[type eq "work"]`) dropped, split on `.` and `:`. */
function pathSegments(path: string): string[] {
  return path
    .replace(/\[[^\]]*\]/g, '')
    .split(/[.:]/)
    .map((s) => s.trim())
}

/**
 * A path or a value key that names a prototype (`__proto__.x`, `constructor.prototype.x`, a
 * path-less `{"__proto__": {…}}`) is refused before anything is applied: set, it would change
 * every object of the process.
 */
function refuseForbidden(op: PatchOp): void {
  const bad = (name: string) => FORBIDDEN.has(name.toLowerCase())
  if (
    op.path !== undefined &&
    splitPath(op.path)
      .path.replace(/\[[^\]]*\]/g, '')
      .split('.').length > MAX_PATH_SEGMENTS
  )
    throw new ScimError(400, 'invalidPath', `A path names at most ${MAX_PATH_SEGMENTS} attributes, one in another.`)
  if (op.path !== undefined && pathSegments(op.path).some(bad))
    throw new ScimError(400, 'invalidPath', `The path "${op.path}" names a forbidden attribute.`)
  const visit = (v: unknown): void => {
    if (Array.isArray(v)) v.forEach(visit)
    else if (isObject(v))
      for (const [k, inner] of Object.entries(v)) {
        if (pathSegments(k).some(bad))
          throw new ScimError(400, 'invalidPath', `The value names a forbidden attribute "${k}".`)
        visit(inner)
      }
  }
  visit(op.value)
}

function setDotted(target: Json, path: string, value: unknown, remove: boolean): void {
  const keys = path.split('.')
  let at = target
  for (const k of keys.slice(0, -1)) {
    // Own properties only; new levels have no prototype to reach.
    if (!Object.hasOwn(at, k) || !isObject(at[k])) at[k] = Object.create(null) as Json
    at = at[k] as Json
  }
  const last = keys[keys.length - 1]!
  if (remove) delete at[last]
  else at[last] = value
}

/**
 * Emails and phone numbers that a filtered path adds to (`emails[type eq "work"].value`) exist
 * first, as Entra adds to them before any was set.
 */
function ensureFilteredItem(resource: Json, path: string): void {
  const m = /^(emails|phoneNumbers|addresses)\[type eq "([^"]+)"\]/i.exec(path)
  if (!m) return
  const attr = m[1]!
  const list = Array.isArray(resource[attr]) ? (resource[attr] as unknown[]) : []
  if (!list.some((i) => isObject(i) && i.type === m[2])) list.push({ type: m[2] })
  resource[attr] = list
}

/** The resource with the operations applied, in order; a path that cannot be applied is a 400 invalidPath. */
export function applyPatch(resource: Json, ops: PatchOp[]): Json {
  let out: Json = structuredClone(resource)
  for (const op of ops) refuseForbidden(op)
  for (const op of ops) {
    const { extension, path } = op.path === undefined ? { path: undefined } : splitPath(op.path)
    if (extension) {
      const ext = isObject(out[extension]) ? out[extension] : {}
      setDotted(ext, path!, op.value, op.op === 'remove')
      out[extension] = ext
      continue
    }
    if (path !== undefined && op.op !== 'remove') ensureFilteredItem(out, path)
    try {
      out = scimPatch(out as never, [{ ...op, path } as ScimPatchOperation])
    } catch (err) {
      throw new ScimError(400, 'invalidPath', (err as Error).message)
    }
  }
  return out
}
