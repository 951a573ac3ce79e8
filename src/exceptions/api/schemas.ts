import { Type, type Static } from '@sinclair/typebox'
import { PageSchema } from '../../platform/http/schemas.js'
import { SiteRefSchema } from '../../sites/index.js'
import { EXCEPTION_KINDS, KIND_NAMES, NEXT_ACTIONS } from '../model/kinds.js'

const oneOf = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) })

const KINDS_DOC = KIND_NAMES.map(
  (k) => `\`${k}\` (next action \`${EXCEPTION_KINDS[k].action}\`): ${EXCEPTION_KINDS[k].about}`,
).join(' · ')

const FilterFields = {
  kind: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 300,
      description: `One kind or a comma list; default every kind. ${KINDS_DOC}`,
    }),
  ),
  inboundSiteId: Type.Optional(
    Type.String({ minLength: 1, maxLength: 64, description: 'Exceptions of parcels at this site or a site under it.' }),
  ),
  unclaimedDays: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: 365,
      default: 3,
      description: 'A parcel waiting longer than this many days is `unclaimed`.',
    }),
  ),
}

export const ListExceptionsQuerySchema = Type.Object(
  {
    ...FilterFields,
    page: Type.Optional(PageSchema),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 25 })),
  },
  { additionalProperties: false },
)
export type ListExceptionsQuery = Static<typeof ListExceptionsQuerySchema>

export const CountExceptionsQuerySchema = Type.Object(FilterFields, { additionalProperties: false })
export type CountExceptionsQuery = Static<typeof CountExceptionsQuerySchema>

export const ExceptionSchema = Type.Object(
  {
    kind: oneOf(KIND_NAMES),
    nextAction: oneOf(NEXT_ACTIONS),
    packageId: Type.String(),
    trackingNumber: Type.Optional(Type.String()),
    currentStatus: Type.Optional(Type.String()),
    receiver: Type.Optional(Type.Object({ contactId: Type.String(), name: Type.String() })),
    currentLocation: Type.Optional(SiteRefSchema),
    packageLocation: Type.Optional(Type.String()),
    since: Type.String({
      format: 'date-time',
      description:
        'When the exception arose as far as is known: arrival (unclaimed, damaged, unknown_format), the scan issue opened, the departure noted, the notification failed, the audit.',
    }),
    detail: Type.Optional(Type.String({ description: 'What the source says: the scan issue reason, the error…' })),
    scanIssueId: Type.Optional(Type.String()),
    notificationId: Type.Optional(
      Type.String({
        description: 'notification_failed: resend it with POST /api/v1/notifications/{notificationId}/resend.',
      }),
    ),
    contactId: Type.Optional(Type.String({ description: 'recipient_departed: the recipient who left.' })),
    auditId: Type.Optional(Type.String()),
    shelfId: Type.Optional(Type.String({ description: 'missing_from_shelf: the shelf (an inboundSiteId) audited.' })),
  },
  { $id: 'ParcelException', title: 'ParcelException' },
)
export type ParcelException = Static<typeof ExceptionSchema>

export const ExceptionListSchema = Type.Object({
  exceptions: Type.Array(ExceptionSchema),
  totalCount: Type.Integer(),
})

export const ExceptionCountsSchema = Type.Object({
  counts: Type.Array(Type.Object({ kind: oneOf(KIND_NAMES), nextAction: oneOf(NEXT_ACTIONS), count: Type.Integer() }), {
    description: 'Every kind, in a fixed order, zero included.',
  }),
  totalCount: Type.Integer(),
})
export type ExceptionCounts = Static<typeof ExceptionCountsSchema>
