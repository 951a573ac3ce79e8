import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { FOLDED_LETTERS, normalizeForMatch } from '../../src/contacts/model/normalize.js'
import { useTestDatabase } from '../support/use-test-app.js'

// The folding of names is written twice: normalizeForMatch in TypeScript (match_name, the printed
// name) and contact_alias_words in SQL (aliases, migration 0076). A letter folded by one and not the other
// is an alias the label matcher cannot find, so the two are compared letter by letter: every letter
// either folds (and its capital), and all of Latin-1 and the Latin Extended blocks.

const db = useTestDatabase()

function range(from: number, to: number): string[] {
  return Array.from({ length: to - from + 1 }, (_, i) => String.fromCodePoint(from + i))
}

describe('contact_alias_words (SQL) folds as normalizeForMatch (TypeScript)', () => {
  it('every letter, alone and inside a name', async () => {
    const letters = [
      ...new Set([
        ...FOLDED_LETTERS,
        ...FOLDED_LETTERS.map((c) => c.toUpperCase()),
        ...range(0x20, 0x7e),
        ...range(0xa0, 0x24f),
        ...range(0x1e00, 0x1eff),
      ]),
    ]
    const inputs = [...letters, ...letters.map((c) => `Mary-${c}nn O’Brien`)]
    const { rows } = await sql<{ input: string; folded: string[] }>`
      select input, contact_alias_words(array[input]) as folded from unnest(${inputs}::text[]) as input`.execute(
      db.handle.db,
    )
    expect(rows).toHaveLength(inputs.length)
    const ts = (s: string) => [normalizeForMatch(s)].filter(Boolean)
    const differ = rows.filter((r) => JSON.stringify(r.folded) !== JSON.stringify(ts(r.input)))
    expect(
      differ.map((r) => `${r.input} → SQL ${JSON.stringify(r.folded)}, TS ${JSON.stringify(ts(r.input))}`),
    ).toEqual([])
  })

  it('aliases are indexed folded whole', async () => {
    const { rows } = await sql<{ words: string[] }>`
      select contact_alias_words(${['Søren', 'Mary-Ann', 'ŁUKASZ', 'Straße', '  --  ']}::text[]) as words`.execute(
      db.handle.db,
    )
    expect(rows[0]!.words).toEqual(['soren', 'mary ann', 'lukasz', 'strasse'])
  })

  it('a contact is indexed by its name words and its folded aliases marked with "=" (migration 0082)', async () => {
    const { rows } = await sql<{ none: string[]; some: string[]; nil: string[] }>`
      select contact_match_words('robert j smith', '{}') as none,
        contact_match_words('robert smith', ${['Mary-Ann', 'Bob', 'Søren']}::text[]) as some,
        contact_match_words('robert smith', null) as nil`.execute(db.handle.db)
    expect(rows[0]).toEqual({
      none: ['robert', 'j', 'smith'],
      some: ['robert', 'smith', '=mary ann', '=bob', '=soren'],
      nil: ['robert', 'smith'],
    })
  })
})
