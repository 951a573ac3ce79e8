import { Type } from '@sinclair/typebox'
import { PackageRecordSchema } from '../../packages/index.js'
import { SkipSchema } from '../../platform/http/schemas.js'

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
const Day = (description: string) => Type.String({ format: 'date', description })
const Timestamp = Type.String({ format: 'date-time' })

export const ContactParams = Type.Object({ contactId: Id })
export const HoldParams = Type.Object({ contactId: Id, holdId: Id })
export const PackageParams = Type.Object({ packageId: Id })
export const SiteParams = Type.Object({ inboundSiteId: Id })
export const ProposalParams = Type.Object({ proposalId: Id })

export const HoldSchema = Type.Object(
  {
    holdId: Type.String(),
    contactId: Type.String(),
    startDate: Type.String({ description: 'The first day held (`YYYY-MM-DD`, a UTC day).' }),
    endDate: Type.String({ description: 'The last day held, included.' }),
    reason: Type.String(),
    inForce: Type.Boolean({ description: 'The hold covers the present moment.' }),
    createdBy: Type.String({ description: 'The clerk or client that set it.' }),
    createdAt: Timestamp,
  },
  { title: 'RecipientHold' },
)

export const HoldListSchema = Type.Object({
  holds: Type.Array(HoldSchema, { description: 'Latest end first, at most 100.' }),
  onHoldUntil: Type.Optional(
    Type.String({ description: 'The last day of the hold in force now; absent when the contact is not on hold.' }),
  ),
})

export const CreateHoldSchema = Type.Object(
  {
    startDate: Day('The first day held (`YYYY-MM-DD`).'),
    endDate: Day('The last day held, included; on or after startDate, today or later.'),
    reason: Type.String({ minLength: 1, maxLength: 200, description: 'Why (vacation, leave…), shown at the desk.' }),
  },
  { additionalProperties: false },
)

export const ForwardSchema = Type.Object(
  {
    inboundSiteId: Type.Optional(Id),
    address: Type.Optional(
      Type.String({ minLength: 1, maxLength: 500, description: 'A free-text address outside the subscription.' }),
    ),
    comment: Type.Optional(Type.String({ maxLength: 500, description: 'Added to the activity.' })),
  },
  { additionalProperties: false },
)

export const ForwardResultSchema = PackageRecordSchema

export const DeadlineSchema = Type.Object(
  {
    inboundSiteId: Type.String(),
    returnAfterDays: Type.Union([Type.Integer(), Type.Null()], {
      description: "The site's own deadline; null: its nearest ancestor's.",
    }),
    effective: Type.Optional(
      Type.Object({
        returnAfterDays: Type.Integer(),
        inboundSiteId: Type.String({ description: 'The site (this one or an ancestor) whose deadline applies.' }),
      }),
    ),
  },
  { title: 'ReturnDeadline' },
)

export const SetDeadlineSchema = Type.Object(
  {
    returnAfterDays: Type.Union([Type.Integer({ minimum: 1, maximum: 365 }), Type.Null()], {
      description: 'Days a parcel may wait here before it is proposed for return (1–365); null: inherit again.',
    }),
  },
  { additionalProperties: false },
)

export const ProposalSchema = Type.Object(
  {
    proposalId: Type.String(),
    packageId: Type.String(),
    trackingNumber: Type.String(),
    currentStatus: Type.String(),
    receiver: Type.Optional(Type.Object({ contactId: Type.String(), name: Type.String() })),
    inboundSiteId: Type.String({ description: 'Where the parcel waits.' }),
    siteName: Type.Optional(Type.String()),
    receivedAt: Timestamp,
    deadlineDays: Type.Integer({ description: 'The deadline it passed, in days.' }),
    proposedAt: Timestamp,
    shownFrom: Timestamp,
  },
  { title: 'ReturnProposal' },
)

export const ProposalListQuerySchema = Type.Object({
  inboundSiteId: Type.Optional(Id),
  skip: SkipSchema,
  limit: Type.Integer({ minimum: 1, maximum: 200, default: 50 }),
})

export const ProposalListSchema = Type.Object({ proposals: Type.Array(ProposalSchema), totalCount: Type.Integer() })

export const ConfirmSchema = Type.Object(
  { comment: Type.Optional(Type.String({ maxLength: 500, description: 'Added to the activity.' })) },
  { additionalProperties: false },
)

export const ExtendSchema = Type.Object(
  { days: Type.Integer({ minimum: 1, maximum: 365, description: 'Days the proposal leaves the list.' }) },
  { additionalProperties: false },
)
export const ExtendResultSchema = Type.Object({ shownFrom: Timestamp })
