import { withinScope } from '../../packages/index.js'
import type { SiteInfo } from '../../sites/index.js'
import { invalid } from '../../platform/kit/errors.js'

/**
 * A clerk limited to a site (Actor.siteScope, issue 18.2) opens and settles scan issues only for
 * packages at that site or below it, and names no other site for the issue: the packages domain's
 * fence (`withinScope`), and the same 400 naming the field as it puts on writing those packages
 * (packages/model/site-scope.ts).
 */
export function checkIssueSiteScope(
  scope: string | undefined,
  sites: Map<string, SiteInfo>,
  at: { packageSite: string | null | undefined; issueSite?: string | undefined; packageField: string },
): void {
  if (scope === undefined) return
  const limit = `the sites this user works at (site ${scope} and below)`
  const within = (id: string | null | undefined) => withinScope(scope, id ? sites.get(id) : undefined)
  if (!within(at.packageSite)) throw invalid(at.packageField, `The package is at a site outside ${limit}.`)
  if (at.issueSite !== undefined && !within(at.issueSite))
    throw invalid('siteId', `Site ${at.issueSite} is outside ${limit}.`)
}
