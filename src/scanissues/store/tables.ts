import type { ColumnType, Selectable } from 'kysely'
import type { ScanIssueReason, ScanIssueStatus, StoredSuggestion } from '../model/issue.js'

// The scan-issues table (migration 0055) as Kysely sees it, merged into the shared Database
// interface here: the domain owns its table types as it owns its migration.
type Timestamp = ColumnType<Date, Date | string, Date | string>
type Json<T> = ColumnType<T, string, string>

export interface ScanIssueTable {
  scan_issue_id: string
  sub_id: string
  package_id: string
  reason: ScanIssueReason
  status: ColumnType<ScanIssueStatus, ScanIssueStatus | undefined, ScanIssueStatus>
  read_name: string | null
  read_company: string | null
  read_unit: string | null
  read_lines: Json<string[]>
  ocr_confidence: number | null
  suggestions: Json<StoredSuggestion[]>
  image_id: string | null
  site_id: string | null
  opened_by: string
  opened_at: Timestamp
  contact_id: string | null
  settled_by: string | null
  settled_at: Timestamp | null
}

declare module '../../platform/db/tables.js' {
  interface Database {
    scan_issues: ScanIssueTable
  }
}

export type ScanIssueRow = Selectable<ScanIssueTable>
