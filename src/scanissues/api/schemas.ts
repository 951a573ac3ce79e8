import { Type, type Static } from '@sinclair/typebox'
import { PageSchema } from '../../platform/http/schemas.js'
import { SCAN_ISSUE_REASONS, SCAN_ISSUE_STATUSES } from '../model/issue.js'

// One error item naming the allowed values (a union of literals gives one per literal).
const oneOf = <T extends readonly string[]>(values: T, description?: string) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...(description ? { description } : {}) })

const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' })
const Line = Type.String({ maxLength: 200 })

export const SuggestionSchema = Type.Object({
  contactId: Type.String(),
  name: Type.String(),
  company: Type.Optional(Type.String()),
  unit: Type.Optional(Type.String()),
  group: Type.Boolean({ description: 'A group contact (business mail for a department or site).' }),
  score: Type.Number({ minimum: 0, maximum: 1, description: 'How surely the label names this contact, 0–1.' }),
})

export const ScanIssueSchema = Type.Object(
  {
    scanIssueId: Type.String(),
    packageId: Type.String(),
    trackingNumber: Type.Optional(Type.String()),
    reason: oneOf(SCAN_ISSUE_REASONS),
    status: oneOf(SCAN_ISSUE_STATUSES),
    read: Type.Object({
      name: Type.Optional(Type.String({ description: "The recipient's name line as printed." })),
      company: Type.Optional(Type.String()),
      unit: Type.Optional(Type.String()),
      lines: Type.Array(Type.String(), { description: 'Every line of the SHIP TO block (or of the label) as read.' }),
      confidence: Type.Optional(Type.Integer({ description: "OCR's mean confidence, 0–100." })),
    }),
    suggestions: Type.Array(SuggestionSchema, { description: 'The best three candidates when the issue was opened.' }),
    imageId: Type.Optional(Type.String({ description: "The label photo (one of the package's images)." })),
    siteId: Type.Optional(Type.String()),
    openedBy: Type.String(),
    openedAt: Type.String({ format: 'date-time' }),
    contactId: Type.Optional(Type.String({ description: 'Settled: the recipient the clerk chose.' })),
    settledBy: Type.Optional(Type.String()),
    settledAt: Type.Optional(Type.String({ format: 'date-time' })),
  },
  { $id: 'ScanIssue', title: 'ScanIssue' },
)
export type ScanIssue = Static<typeof ScanIssueSchema>

export const OpenScanIssueSchema = Type.Object(
  {
    packageId: Id,
    read: Type.Object(
      {
        name: Type.Optional(Line),
        company: Type.Optional(Line),
        unit: Type.Optional(Type.String({ maxLength: 100 })),
        lines: Type.Optional(Type.Array(Line, { maxItems: 80 })),
        confidence: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
      },
      {
        additionalProperties: false,
        description: 'What the label says (decode-image with `read=text` answers it as `label.shipTo`).',
      },
    ),
    reason: Type.Optional(
      oneOf(
        SCAN_ISSUE_REASONS,
        "Default: the matcher's own reason for not choosing (partial_match when it would have chosen).",
      ),
    ),
    imageId: Type.Optional(Id),
    siteId: Type.Optional(Id),
  },
  { additionalProperties: false },
)
export type OpenScanIssue = Static<typeof OpenScanIssueSchema>

export const ResolveScanIssueSchema = Type.Object({ contactId: Id }, { additionalProperties: false })

export const ScanIssueIdParams = Type.Object({ scanIssueId: Id })

export const ListScanIssuesQuerySchema = Type.Object(
  {
    status: Type.Optional(oneOf(SCAN_ISSUE_STATUSES, 'Default open (oldest first); settled lists newest first.')),
    page: Type.Optional(PageSchema),
    size: Type.Optional(Type.Integer({ minimum: 1, maximum: 200, default: 25 })),
  },
  { additionalProperties: false },
)
export type ListScanIssuesQuery = Static<typeof ListScanIssuesQuerySchema>

export const ScanIssueListSchema = Type.Object({
  scanIssues: Type.Array(ScanIssueSchema),
  totalCount: Type.Integer(),
})
