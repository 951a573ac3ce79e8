import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'

/** A contact as the label matcher reads it. */
export interface MatchCandidateRow {
  contact_id: string
  name: string
  company: string | null
  unit: string | null
  aliases: string[]
  is_group: boolean
  location_site_id: string | null
}

/**
 * How alike a printed word and a directory name word must be (pg_trgm similarity) for the word's
 * contacts to be fetched. 0.3 lets through one misread letter in a five-letter surname ("SMLTH":
 * 3 of 9 trigrams shared with "smith"); the scoring in JS decides, this only bounds what it sees.
 */
export const WORD_SIMILARITY = 0.3
/** Most candidates fetched for one label; those holding the printed surname exactly first. */
const MAX_CANDIDATES = 500

/**
 * Marks a folded alias among a contact's match words (migration 0082): "=mary ann" is the alias
 * "Mary-Ann", "mary" a word of the name. A folded word never holds it.
 */
const ALIAS_MARK = '='

/**
 * Active receiving contacts whose name holds a word like one of `surname` and, when `first` is
 * given (the printed first name and its nickname forms), also a word like one of those or an
 * alias equal to one of `alias` (those and the whole printed first name; `first` when not given).
 * The words like the printed ones come from the subscription's name-word table through its
 * trigram index (migrations 0054, 0062); the contacts holding them through one GIN index on each
 * contact's name words and marked aliases (0082), led by sub_id: both conditions are overlaps
 * with that one array, intersected inside the index. The similarity threshold is set for this
 * transaction only.
 */
export async function findCandidatesByWords(
  trx: Executor,
  subId: string,
  words: { surname: string[]; first?: string[]; alias?: string[] },
): Promise<MatchCandidateRow[]> {
  if (words.surname.length === 0) return []
  await sql`select set_config('pg_trgm.similarity_threshold', ${String(WORD_SIMILARITY)}, true)`.execute(trx)
  const near = (tokens: string[]) => sql`array(
      select w.word from unnest(${tokens}::text[]) as t(token)
      join contact_name_words w on w.sub_id = ${subId} and w.word % t.token
      union select unnest(${tokens}::text[]))`
  // Aliases are stored as typed ("Mary-Ann") and indexed folded whole and marked ("=mary ann"):
  // the printed first name is looked up among them alone and whole (`alias`).
  const matchWords = sql`contact_match_words(c.match_name, c.aliases)`
  const first = words.first?.length
    ? sql`and ${matchWords} && (${near(words.first)} || ${(words.alias ?? words.first).map((a) => ALIAS_MARK + a)}::text[])`
    : sql``
  const { rows } = await sql<MatchCandidateRow>`
    select c.contact_id, c.name, c.company, c.unit, c.aliases, c.is_group, c.location_site_id
    from contacts c
    where c.sub_id = ${subId} and c.deleted_at is null and c.status = 'active'
      -- Gone (moved out before today): never suggested, never auto-assigned.
      and (c.move_out is null or c.move_out >= current_date)
      and c.contact_type in ('RECEIVER', 'ALL')
      and ${matchWords} && ${near(words.surname)}
      ${first}
    order by (string_to_array(c.match_name, ' ') && ${words.surname}::text[]) desc, c.contact_id
    limit ${MAX_CANDIDATES}`.execute(trx)
  return rows
}

/** Group contacts (business mail with no person): by company or name like `company`, and every one at `siteId`. */
export async function findGroupContacts(
  db: Executor,
  subId: string,
  company: string | undefined,
  siteId: string | undefined,
): Promise<MatchCandidateRow[]> {
  const { rows } = await sql<MatchCandidateRow>`
    select contact_id, name, company, unit, aliases, is_group, location_site_id
    from contacts
    where sub_id = ${subId} and deleted_at is null and status = 'active' and is_group
      and (move_out is null or move_out >= current_date)
      and contact_type in ('RECEIVER', 'ALL')
      and (${siteId ?? null}::text is not null and location_site_id = ${siteId ?? null}
           or ${company ?? null}::text is not null
              and (similarity(match_name, ${company ?? ''}) > 0.3 or similarity(coalesce(match_company, ''), ${company ?? ''}) > 0.3))
    order by contact_id
    limit ${MAX_CANDIDATES}`.execute(db)
  return rows
}
