import type { SiteInfo } from '../../sites/index.js'
import { invalid } from '../../platform/kit/errors.js'
import type { PackageReaders } from './deps.js'
import { withinScope, type Actor } from './rules.js'

/**
 * A clerk limited to a site (Actor.siteScope) writes a package only where it is at that site or
 * below, and only to such a site: `current` is the package's site before the change, `target`
 * the one the change names (or, for an add, the default primary site).
 */
export async function checkSiteScope(
  readers: PackageReaders,
  actor: Actor,
  current: string | null | undefined,
  target: SiteInfo | undefined,
  targetField: string,
): Promise<void> {
  const scope = actor.siteScope
  if (scope === undefined) return
  const limit = `this user may only write packages at site ${scope} or the sites below it`
  if (target !== undefined && !withinScope(scope, target))
    throw invalid(
      targetField,
      `Inbound site ${target.inboundSiteId} is outside the sites this user works at: ${limit}.`,
    )
  if (current === undefined) {
    if (target === undefined) throw invalid(targetField, `No inbound site given: ${limit}.`)
    return
  }
  const site = current === null ? undefined : (await readers.sites.getInfos(actor.subId, [current])).get(current)
  if (!withinScope(scope, site)) throw invalid('packageId', `The package is at a site outside ${limit}.`)
}
