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
 * How alike a surname token and a word of a contact's name must be to fetch the contact
 * (pg_trgm's word similarity). 0.45 lets through a six-letter surname with one letter misread
 * ("SMLTH" for Smith shares 3 of 6 trigrams with it at the word's edges plus the ends); the
 * scoring in JS decides, this only bounds what it sees.
 */
export const WORD_SIMILARITY = 0.45
/** Most candidates fetched for one label; the closest by trigram first. */
const MAX_CANDIDATES = 200

/**
 * Active receiving contacts a word of whose normalised name is like one of `tokens` (the label's
 * surname words, normalised), through the GIN trigram index on `match_name` (migration 0054).
 * `%>` is pg_trgm's "some extent of the left side is like the right side" operator, which that
 * index serves; its threshold is set for this transaction only.
 */
export async function findCandidatesByTokens(
  trx: Executor,
  subId: string,
  tokens: string[],
): Promise<MatchCandidateRow[]> {
  if (tokens.length === 0) return []
  await sql`select set_config('pg_trgm.word_similarity_threshold', ${String(WORD_SIMILARITY)}, true)`.execute(trx)
  const { rows } = await sql<MatchCandidateRow>`
    select contact_id, name, company, unit, aliases, is_group, location_site_id from (
      select c.contact_id, c.name, c.company, c.unit, c.aliases, c.is_group, c.location_site_id,
             max(word_similarity(t.token, c.match_name)) as closeness
      from unnest(${tokens}::text[]) as t(token)
      join contacts c on c.match_name %> t.token
      where c.sub_id = ${subId} and c.deleted_at is null and c.status = 'active'
        and c.contact_type in ('RECEIVER', 'ALL')
      group by c.contact_id
    ) found
    order by closeness desc, contact_id
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
      and contact_type in ('RECEIVER', 'ALL')
      and (${siteId ?? null}::text is not null and location_site_id = ${siteId ?? null}
           or ${company ?? null}::text is not null
              and (similarity(match_name, ${company ?? ''}) > 0.3 or similarity(coalesce(match_company, ''), ${company ?? ''}) > 0.3))
    order by contact_id
    limit ${MAX_CANDIDATES}`.execute(db)
  return rows
}
