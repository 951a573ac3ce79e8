import type { Found } from './kinds.js'

/** A shelf's latest audit and the parcels it did not find (shelves' latestMissing). */
export interface ShelfMissing {
  audit_id: string
  site_id: string
  audited_at: Date
  missing_ids: string[]
}

/**
 * Parcels still missing from their shelf: missing at the shelf's latest audit, still waiting there,
 * and not changed since (a filing, a move, any update is someone having it in hand).
 */
export function missingStill(
  audits: ShelfMissing[],
  waiting: Array<{ package_id: string; site_id: string | null; updated_at: Date }>,
): Found[] {
  const now = new Map(waiting.map((r) => [r.package_id, r]))
  return audits.flatMap((a) =>
    a.missing_ids.flatMap((id) => {
      const p = now.get(id)
      if (!p || p.site_id !== a.site_id || p.updated_at.getTime() > a.audited_at.getTime()) return []
      return [
        {
          kind: 'missing_from_shelf' as const,
          packageId: id,
          since: a.audited_at,
          refs: { auditId: a.audit_id, shelfId: a.site_id },
        },
      ]
    }),
  )
}
