// Letters NFKD leaves whole (they are not a base letter plus a combining mark), folded the way
// carriers print them on ASCII-only labels.
const FOLD: Record<string, string> = {
  ø: 'o',
  đ: 'd',
  ð: 'd',
  ł: 'l',
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  þ: 'th',
  ı: 'i',
  ħ: 'h',
}
/** The letters folded beyond NFKD: migration 0076's `contact_alias_words` folds them too, and a test holds the two alike. */
export const FOLDED_LETTERS = Object.keys(FOLD)
const FOLDABLE = new RegExp(`[${Object.keys(FOLD).join('')}]`, 'gu')

/**
 * The form contact names and companies are matched in: a label's ship-to "JOSÉ  O'BRIEN-SMITH"
 * and the contact "José O’Brien Smith" both become "jose o brien smith". NFKD then dropping
 * combining marks strips diacritics; anything that is not a letter or a digit separates words.
 * Pure; the decode flow calls it through `findMatches`, and `match_name` stores its result.
 */
export function normalizeForMatch(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(FOLDABLE, (c) => FOLD[c] ?? c)
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
}
