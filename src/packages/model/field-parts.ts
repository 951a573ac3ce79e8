import { Type, type TLiteral, type TSchema, type TUnion } from '@sinclair/typebox'
import type { DirectCell, PackageColumn } from './field-kinds.js'
import { contactRef, type RecordContext } from './refs.js'

// The building blocks of the package field registry (fields.ts): schemas, cells, the contact field.

export const lit = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Union(
    values.map((v) => Type.Literal(v)),
    description ? { description } : {},
  ) as unknown as TUnion<Array<TLiteral<T[number]>>>
export const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
export const Text = (max: number) => Type.String({ maxLength: max })
export const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])

export const CONFIRMATION_TYPES = ['NONE', 'SIGNATURE', 'PHOTO', 'PHONE', 'EMAIL', 'PIN', 'ID_CHECK'] as const

export const ContactRef = Type.Object({ contactId: Id }, { additionalProperties: false })
export const SiteRef = Type.Ref('SiteRef')
export const ContactSchema = Type.Object({
  contactId: Type.String(),
  name: Type.String(),
  company: Type.Optional(Type.String()),
  email: Type.Optional(Type.String()),
  phone: Type.Optional(Type.String()),
  personalId: Type.Optional(Type.String()),
  location: Type.Optional(SiteRef),
  mailStopLocation: Type.Optional(SiteRef),
})

export const text = (v: string | null | undefined) => v ?? ''
export const cellFrom = (columns: readonly PackageColumn[], cell: DirectCell['cell']): DirectCell => ({ columns, cell })

type ContactColumn = 'sender_id' | 'receiver_id' | 'given_to_id'
const CONTACT_CELLS = ['contactId', 'name', 'company', 'email', 'phone', 'personalId'] as const
/** A contact field: the contact the column names, its cells read from the batch's contacts. */
export const contact = (name: string, column: ContactColumn) => ({
  column,
  writtenBy: 'change' as const,
  record: Type.Optional(ContactSchema),
  read: (r: { [K in ContactColumn]: string | null }, ctx: RecordContext) => contactRef(ctx, r[column]),
  cells: Object.fromEntries(
    CONTACT_CELLS.map((f) => [
      `${name}.${f}`,
      cellFrom([column], (r, ctx) => {
        const c = r[column] ? ctx.contacts.get(r[column]) : undefined
        return c ? text(c[f]) : ''
      }),
    ]),
  ),
})
export const siteCell = (field: 'inboundSiteId' | 'name' | 'locationHierarchy') =>
  cellFrom(['site_id'], (r, ctx) => (r.site_id ? text(ctx.sites.get(r.site_id)?.[field]) : ''))
export const carrierCell = (field: 'carrierId' | 'name') =>
  cellFrom(['carrier_id'], (r, ctx) => (r.carrier_id ? text(ctx.carriers.get(r.carrier_id)?.[field]) : ''))
