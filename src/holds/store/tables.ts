import type { ColumnType, Selectable } from 'kysely'

// The holds domain's tables (migration 0078) as Kysely sees them, merged into the shared Database
// interface here: the domain owns its table types as it owns its migration.
type Timestamp = ColumnType<Date, Date | string, Date | string>

export interface RecipientHoldTable {
  hold_id: string
  sub_id: string
  contact_id: string
  starts_at: Timestamp
  ends_at: Timestamp
  reason: string
  created_by: string
  created_at: Timestamp
}

export interface SiteReturnDeadlineTable {
  sub_id: string
  site_id: string
  days: number
  updated_at: Timestamp
}

export type ProposalStatus = 'open' | 'returned' | 'dismissed'

export interface ReturnProposalTable {
  proposal_id: string
  sub_id: string
  package_id: string
  site_id: string
  deadline_days: number
  received_at: Timestamp
  proposed_at: Timestamp
  status: ProposalStatus
  /** An open proposal is listed from then on: its proposal time, or the end of an extension. */
  shown_from: Timestamp
  decided_by: string | null
  decided_at: Timestamp | null
}

declare module '../../platform/db/tables.js' {
  interface Database {
    recipient_holds: RecipientHoldTable
    site_return_deadlines: SiteReturnDeadlineTable
    return_proposals: ReturnProposalTable
  }
}

export type HoldRow = Selectable<RecipientHoldTable>
export type ProposalRow = Selectable<ReturnProposalTable>
