import { KindGuard, Type, type TObject, type TSchema } from '@sinclair/typebox'

/**
 * CONTRACT §5 drop-in rule, "what a read returns, a write accepts": a client may send back the
 * record it got from a GET (or from Pitney Bowes), read-only members included. The write schema
 * stays the home of what can be written; the record schema the home of what is read. This module
 * derives, from the two, the schema a write accepts, so the read-only set is never listed by hand:
 *
 * - a member of the record that the write schema lacks is accepted and ignored, with the type the
 *   record gives it, but every one of its own members optional (a reference sent back partly, such
 *   as `{inboundSiteId, name}`, is still what a read returned);
 * - a member in both is the write's, with the record's extra sub-members added the same way
 *   (`carrier.name`, `customFields[].name`/`status`, a contact's `name`, `company`, `location`…);
 * - every object stays closed: a member that is in neither schema is a 400 naming it.
 */
export const READ_ONLY_NOTE = 'Read-only (as a GET returns it): accepted and ignored.'

/** Schemas that records reference by `$ref`, resolved so their members can be made optional. */
export type RefTable = Readonly<Record<string, TSchema>>

/** A schema's own annotations (description, limits…): its string keys but the structural ones (and the title: a derived copy is not the named schema). */
const STRUCTURE = new Set(['type', 'properties', 'required', 'items', 'anyOf', '$id', 'title', 'additionalProperties'])
const annotations = (s: TSchema): Record<string, unknown> =>
  Object.fromEntries(Object.entries(s).filter(([k]) => !STRUCTURE.has(k)))
const keepOptional = <T extends TSchema>(from: TSchema, to: T): T =>
  KindGuard.IsOptional(from) ? (Type.Optional(to) as unknown as T) : to

/** A read-only member as a write may carry it: the record's type, members optional, objects closed. */
function readOnly(read: TSchema, refs: RefTable): TSchema {
  if (KindGuard.IsRef(read)) {
    const target = refs[read.$ref]
    if (!target) throw new Error(`read-only member refers to ${read.$ref}, which is not in the reference table`)
    return readOnly(target, refs)
  }
  if (KindGuard.IsObject(read)) {
    const props = Object.fromEntries(
      Object.entries(read.properties).map(([k, v]) => [k, Type.Optional(readOnly(v, refs))]),
    )
    return Type.Object(props, { ...annotations(read), additionalProperties: false })
  }
  if (KindGuard.IsArray(read)) return Type.Array(readOnly(read.items, refs), annotations(read))
  if (KindGuard.IsUnion(read))
    return Type.Union(
      read.anyOf.map((m) => readOnly(m, refs)),
      annotations(read),
    )
  return read
}

/** The write member `write`, widened by the read-only sub-members its record counterpart `read` has. */
function widen(write: TSchema, read: TSchema | undefined, refs: RefTable): TSchema {
  if (read === undefined) return write
  const target = KindGuard.IsRef(read) ? refs[read.$ref] : read
  if (target === undefined) return write
  let out: TSchema = write
  if (KindGuard.IsUnion(write))
    out = Type.Union(
      write.anyOf.map((m) => widen(m, target, refs)),
      annotations(write),
    )
  else if (KindGuard.IsArray(write) && KindGuard.IsArray(target))
    out = Type.Array(widen(write.items, target.items, refs), annotations(write))
  else if (KindGuard.IsObject(write) && KindGuard.IsObject(target)) out = acceptReadOnly(write, target, refs)
  return keepOptional(write, out)
}

/**
 * `write` widened to accept the read-only members of `read` (see the module comment). Typed as
 * `write`: the members it adds are ignored by everything downstream.
 */
export function acceptReadOnly<T extends TObject>(
  write: T,
  read: TObject,
  refs: RefTable = {},
  note = READ_ONLY_NOTE,
): T {
  const props: Record<string, TSchema> = {}
  for (const [k, w] of Object.entries(write.properties)) props[k] = widen(w, read.properties[k], refs)
  for (const [k, r] of Object.entries(read.properties)) {
    if (k in props) continue
    const member = readOnly(r, refs)
    props[k] = Type.Optional({ ...member, description: member.description ? `${note} ${member.description}` : note })
  }
  return Type.Object(props, { ...annotations(write), additionalProperties: false }) as unknown as T
}

/** The read-only member names `acceptReadOnly` adds at the top level (for descriptions and tests). */
export function readOnlyMembers(write: TObject, read: TObject): string[] {
  return Object.keys(read.properties).filter((k) => !(k in write.properties))
}
