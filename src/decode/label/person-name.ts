/**
 * A printed person's name in its parts. Labels print names every way a shipper's system stores
 * them: "ROBERT J SMITH", "SMITH, ROBERT", "Dr. Robert Smith Jr.", "R. SMITH", "ROBERT SMITH-JONES".
 * Upper case on most labels, so case says nothing; a comma is the one sure sign of "LAST, FIRST".
 */
export interface PersonName {
  /** The first name as printed, or its initial (one letter) when only that is printed; '' when none. */
  first: string
  /** Middle names and initials. */
  middle: string[]
  /** The surname: every word of a compound one ("van der berg", "smith jones"). */
  last: string
  /** True when `first` is an initial only ("R. SMITH"). */
  initialOnly: boolean
  /** The name was printed "LAST, FIRST". */
  commaForm: boolean
}

const TITLES = new Set(['mr', 'mrs', 'ms', 'miss', 'mx', 'dr', 'prof', 'rev', 'sir', 'madam', 'attn', 'attention'])
const SUFFIXES = new Set(['jr', 'sr', 'ii', 'iii', 'iv', 'phd', 'md', 'dds', 'esq', 'rn', 'cpa', 'dvm', 'do'])
/** Particles that belong to the surname that follows them ("Ludwig van Beethoven"). */
const PARTICLES = new Set(['van', 'von', 'der', 'den', 'de', 'del', 'della', 'di', 'da', 'la', 'le', 'du', 'dos', 'st'])

/**
 * Words of a name, lower case, accents folded, punctuation gone except what splits words. A hyphen
 * or apostrophe joins ("smith-jones" and "o'brien" stay one word, as the directory spells them
 * either way: the matcher compares both forms).
 */
export function nameWords(s: string): string[] {
  return s
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[’`]/g, "'")
    .split(/[^\p{L}\p{N}'-]+/u)
    .map((w) => w.replace(/^['-]+|['-]+$/g, ''))
    .filter((w) => w.length > 0)
}

/** Splits a printed name; undefined when nothing name-like is left (empty, digits only). */
export function parsePersonName(printed: string): PersonName | undefined {
  const comma = printed.indexOf(',')
  if (comma > 0) {
    const before = clean(nameWords(printed.slice(0, comma)))
    const after = clean(nameWords(printed.slice(comma + 1)))
    // "SMITH JR, ROBERT" or "SMITH, ROBERT J" → last before the comma. "ROBERT SMITH, JR" had its
    // suffix removed by clean(): after is empty, so the part before is read in order.
    if (before.length > 0 && after.length > 0) {
      const [first, ...middle] = after
      return shaped(first!, middle, before.join(' '), true)
    }
    return inOrder(before.length > 0 ? before : after)
  }
  return inOrder(clean(nameWords(printed)))
}

function inOrder(words: string[]): PersonName | undefined {
  if (words.length === 0) return undefined
  if (words.length === 1) return shaped('', [], words[0]!, false)
  // The surname starts at its first particle after the first name ("maria de la cruz").
  let lastStart = words.length - 1
  for (let i = 1; i < words.length - 1; i++) {
    if (PARTICLES.has(words[i]!)) {
      lastStart = i
      break
    }
  }
  return shaped(words[0]!, words.slice(1, lastStart), words.slice(lastStart).join(' '), false)
}

function shaped(first: string, middle: string[], last: string, commaForm: boolean): PersonName {
  const initialOnly = first.length === 1
  return { first, middle, last, initialOnly, commaForm }
}

// OCR's digits for letters inside a word of letters ("R0BERT", "SM1TH").
const DIGIT_AS_LETTER: Record<string, string> = { '0': 'o', '1': 'l', '5': 's', '8': 'b' }

/** Titles, suffixes and numbers dropped, misread digits made letters: what is left names the person. */
function clean(words: string[]): string[] {
  return words
    .map((w) => (/\p{L}/u.test(w) ? w.replace(/[0158]/g, (d) => DIGIT_AS_LETTER[d]!) : w))
    .filter((w) => !TITLES.has(w) && !SUFFIXES.has(w) && !/\d/.test(w))
}
