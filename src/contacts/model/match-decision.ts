import {
  SAME_SURNAME,
  scoreBusiness,
  scorePerson,
  type DirectoryEntry,
  type ReadRecipient,
  type ScoredEntry,
} from './match.js'

/** Why a label's recipient was not chosen: the scan-issue reasons. */
export const MATCH_DOUBTS = ['no_match', 'partial_match', 'several_matches', 'business'] as const
export type MatchDoubt = (typeof MATCH_DOUBTS)[number]

export interface MatchPolicy {
  /** The best score must reach this to be chosen (RECIPIENT_AUTO_ASSIGN_THRESHOLD). */
  threshold: number
  /** …and lead the runner-up by this much (RECIPIENT_AUTO_ASSIGN_MARGIN). */
  margin: number
}

export interface MatchDecision {
  /** The contact chosen without asking; absent when in doubt. */
  chosen?: ScoredEntry
  /** Why none was chosen. */
  doubt?: MatchDoubt
  /** The best candidates, best first (at most `limit`, 3 by default), each above MIN_SUGGESTION. */
  suggestions: ScoredEntry[]
}

/** Below this a candidate is not worth showing. */
export const MIN_SUGGESTION = 0.45

/**
 * Ranks the candidates for a label's recipient and decides whether to choose one.
 *
 * A person is chosen when the best score reaches the threshold, leads the runner-up by the margin,
 * and does not rest on an initial (or no first name) while another candidate shares the surname:
 * "R. SMITH" with a Robert and a Rachel Smith on file is a question for the clerk, whatever else
 * the label says. Business mail (a company, no person) goes to a group contact only on the same
 * threshold and margin; else the site's group contacts (`fallback`) are offered.
 */
export function decideRecipient(
  read: ReadRecipient,
  entries: readonly DirectoryEntry[],
  policy: MatchPolicy,
  opts: { limit?: number; fallback?: readonly DirectoryEntry[] } = {},
): MatchDecision {
  const limit = opts.limit ?? 3
  const person = read.name
  const business = !person && read.company ? read.company : undefined
  let ranked: ScoredEntry[]
  if (person) ranked = entries.filter((e) => !e.group).map((e) => scorePerson({ ...read, name: person }, e))
  else if (business) ranked = entries.map((e) => scoreBusiness({ ...read, company: business }, e))
  else ranked = []
  ranked = ranked.filter((s) => s.score >= MIN_SUGGESTION).sort(byScore)
  if (business) ranked = withFallback(ranked, opts.fallback ?? [])
  const suggestions = ranked.slice(0, limit)
  const [best, second] = ranked
  if (!best) return { doubt: business ? 'business' : 'no_match', suggestions }
  const leads = !second || best.score - second.score >= policy.margin
  const sharedSurname =
    !!person && (person.initialOnly || !person.first) && ranked.filter((s) => s.surname >= SAME_SURNAME).length > 1
  if (best.score >= policy.threshold && leads && !sharedSurname) return { chosen: best, suggestions }
  if (business) return { doubt: 'business', suggestions }
  const close = ranked.filter((s) => best.score - s.score < policy.margin)
  return { doubt: close.length > 1 || sharedSurname ? 'several_matches' : 'partial_match', suggestions }
}

/** The site's group contacts after the company's own matches, once each, at a modest score: a place to send it. */
function withFallback(ranked: ScoredEntry[], fallback: readonly DirectoryEntry[]): ScoredEntry[] {
  const seen = new Set(ranked.map((s) => s.contactId))
  const extra = fallback
    .filter((e) => e.group && !seen.has(e.contactId))
    .map((e): ScoredEntry => ({ contactId: e.contactId, score: MIN_SUGGESTION, surname: 0, first: 'none' }))
  return [...ranked, ...extra]
}

function byScore(a: ScoredEntry, b: ScoredEntry): number {
  return b.score - a.score || (a.middleMisfit ?? 0) - (b.middleMisfit ?? 0) || a.contactId.localeCompare(b.contactId)
}
