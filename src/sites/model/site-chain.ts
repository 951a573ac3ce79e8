/**
 * Pure: a site's chain, itself first then its ancestors nearest first, from rows holding the site
 * and its ancestors; a site not among the rows is left out. What a site inherits (the hand-over
 * proof rule, opening hours) is the first value set along it.
 */
export function chainOf<R extends { site_id: string; ancestor_ids: readonly string[] }>(
  siteId: string,
  byId: ReadonlyMap<string, R>,
): R[] {
  const own = byId.get(siteId)
  if (!own) return []
  return [own.site_id, ...[...own.ancestor_ids].reverse()].map((s) => byId.get(s)).filter((s) => s !== undefined)
}
