/** Why a label photo's recipient was not chosen (contacts' MatchDoubt): API, never renamed. */
export const SCAN_ISSUE_REASONS = ['no_match', 'partial_match', 'several_matches', 'business'] as const
export type ScanIssueReason = (typeof SCAN_ISSUE_REASONS)[number]

export const SCAN_ISSUE_STATUSES = ['open', 'settled'] as const
export type ScanIssueStatus = (typeof SCAN_ISSUE_STATUSES)[number]

/** A suggestion as the issue keeps it: what the matcher said when the issue was opened. */
export interface StoredSuggestion {
  contactId: string
  name: string
  company?: string
  unit?: string
  group: boolean
  score: number
}

/** At most this many suggestions are kept and shown. */
export const MAX_SUGGESTIONS = 3
