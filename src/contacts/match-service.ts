import type { PersonName } from '../decode/index.js'
import type { Db } from '../platform/db/database.js'
import { inTransaction } from '../platform/db/transaction.js'
import { decideRecipient, type MatchDoubt, type MatchPolicy } from './model/match-decision.js'
import { wholeFirstNames, type DirectoryEntry, type ScoredEntry } from './model/match.js'
import { normalizeForMatch } from './model/normalize.js'
import { findCandidatesByWords, findGroupContacts, type MatchCandidateRow } from './store/match.js'
import { givenNameForms } from './model/nicknames.js'

/** What a label names: decode's ShipTo reduced to what the directory is matched on. */
export interface RecipientQuery {
  name?: PersonName
  company?: string
  unit?: string
  /** The site the package is received at: its group contacts take business mail no group matches by name. */
  siteId?: string
}

export interface RecipientSuggestion {
  contactId: string
  name: string
  company?: string
  unit?: string
  group: boolean
  /** 0–1: how surely the label names this contact. */
  score: number
  /** How the first name matched (name, alias, nickname, initial, similar, none). */
  firstName: ScoredEntry['first']
}

export interface RecipientMatch {
  /** Chosen without asking: past the threshold and the margin. */
  chosen?: RecipientSuggestion
  /** Why none was chosen. */
  doubt?: MatchDoubt
  /** Best first, at most three. */
  suggestions: RecipientSuggestion[]
}

/**
 * The directory match of a label's recipient: candidates by surname through the trigram index
 * (store/match.ts), scored and decided in JS (model/match.ts, model/match-decision.ts).
 */
export function createRecipientMatcher(deps: { db: Db; policy: MatchPolicy }) {
  const { db, policy } = deps

  async function candidates(subId: string, q: RecipientQuery): Promise<MatchCandidateRow[]> {
    if (q.name) {
      const name = q.name
      const surname = wordsOf([name.last])
      // The printed first name itself however short ("ED"), beside its longer forms ("edward").
      const first =
        name.first.length > 1
          ? [...new Set([...wordsOf([name.first]), ...wordsOf(givenNameForms(name.first))])]
          : undefined
      // Aliases are kept whole ("Mary-Ann" is "mary ann"): the printed first name is looked up whole too.
      const words = first ? { surname, first, alias: [...new Set([...first, ...wholeFirstNames(name)])] } : { surname }
      // One transaction: the trigram threshold is set for it alone.
      return inTransaction(db, async (trx) => {
        const found = await findCandidatesByWords(trx, subId, words)
        // "SMITH ROBERT" (family name first, no comma): the other way round when that finds nobody.
        if (found.length > 0 || !first || name.commaForm) return found
        return findCandidatesByWords(trx, subId, { surname: wordsOf([name.first]), first: surname })
      })
    }
    if (q.company) return findGroupContacts(db, subId, normalizeForMatch(q.company), q.siteId)
    return []
  }

  return {
    async matchRecipient(subId: string, q: RecipientQuery): Promise<RecipientMatch> {
      const rows = await candidates(subId, q)
      const fallback = !q.name && q.siteId ? await findGroupContacts(db, subId, undefined, q.siteId) : []
      const entries = new Map<string, MatchCandidateRow>()
      for (const r of [...rows, ...fallback]) entries.set(r.contact_id, r)
      const decision = decideRecipient(q, rows.map(toEntry), policy, { fallback: fallback.map(toEntry) })
      const shape = (s: ScoredEntry): RecipientSuggestion => suggestionOf(entries.get(s.contactId)!, s)
      const out: RecipientMatch = { suggestions: decision.suggestions.map(shape) }
      if (decision.chosen) out.chosen = shape(decision.chosen)
      if (decision.doubt) out.doubt = decision.doubt
      return out
    },
  }
}

export type RecipientMatcher = ReturnType<typeof createRecipientMatcher>

/** Normalised words to look up: particles and initials ("de", "j") only when nothing longer is among `parts`. */
function wordsOf(parts: string[]): string[] {
  const words = [...new Set(parts.flatMap((p) => normalizeForMatch(p).split(' ')).filter(Boolean))]
  const long = words.filter((w) => w.length >= 3)
  return long.length > 0 ? long : words.filter((w) => w.length >= 2)
}

function toEntry(r: MatchCandidateRow): DirectoryEntry {
  return {
    contactId: r.contact_id,
    name: r.name,
    company: r.company,
    unit: r.unit,
    aliases: r.aliases ?? [],
    group: r.is_group,
  }
}

function suggestionOf(r: MatchCandidateRow, s: ScoredEntry): RecipientSuggestion {
  const out: RecipientSuggestion = {
    contactId: r.contact_id,
    name: r.name,
    group: r.is_group,
    score: s.score,
    firstName: s.first,
  }
  if (r.company) out.company = r.company
  if (r.unit) out.unit = r.unit
  return out
}
