/**
 * A site's return deadline: its own, else its nearest ancestor's (as the other hand-over settings
 * of a site inherit, sites/model/site-chain.ts). `ancestorlist` is root → parent.
 */
export function effectiveDeadline(
  site: { inboundSiteId: string; ancestorlist: readonly string[] },
  own: ReadonlyMap<string, number>,
): { days: number; fromSiteId: string } | undefined {
  for (const id of [site.inboundSiteId, ...[...site.ancestorlist].reverse()]) {
    const days = own.get(id)
    if (days !== undefined) return { days, fromSiteId: id }
  }
  return undefined
}
