import type { Executor } from '../../platform/db/transaction.js'
import type { ScanIssueReason } from '../model/issue.js'

export interface OpenIssueRef {
  scan_issue_id: string
  package_id: string
  reason: ScanIssueReason
  opened_at: Date
}

/**
 * The open issues oldest first, at most `limit` (the exceptions list, issue 30.3): the queue's own
 * order on scan_issues_queue_idx (sub_id, status, opened_at).
 */
export async function openIssueRefs(db: Executor, subId: string, limit: number): Promise<OpenIssueRef[]> {
  return db
    .selectFrom('scan_issues')
    .select(['scan_issue_id', 'package_id', 'reason', 'opened_at'])
    .where('sub_id', '=', subId)
    .where('status', '=', 'open')
    .orderBy('opened_at')
    .orderBy('scan_issue_id')
    .limit(limit)
    .execute()
}
