import { describe, expect, it } from 'vitest'
import { parsePersonName } from '../../src/decode/index.js'
import { decideRecipient } from '../../src/contacts/model/match-decision.js'
import { scorePerson, type DirectoryEntry } from '../../src/contacts/model/match.js'
import { givenNameForms, sameGivenName } from '../../src/contacts/model/nicknames.js'

const policy = { threshold: 0.9, margin: 0.08 }

function entry(contactId: string, name: string, more: Partial<DirectoryEntry> = {}): DirectoryEntry {
  return { contactId, name, aliases: [], group: false, ...more }
}

const directory: DirectoryEntry[] = [
  entry('robert-smith', 'Robert Smith', { unit: '400' }),
  entry('rachel-smith', 'Rachel Smith'),
  entry('roberta-smyth', 'Roberta Smyth'),
  entry('john-smithers', 'John Smithers'),
  entry('liz-taylor', 'Elizabeth Taylor', { aliases: ['Betsy'] }),
  entry('ming-taylor', 'Ming Taylor'),
  entry('sean-obrien', "Seán O'Brien"),
  entry('jose-alvarez', 'José Álvarez'),
  entry('mary-jones-wright', 'Mary Jones-Wright'),
  entry('john-park-101', 'John Park', { unit: '101' }),
  entry('john-park-202', 'John Park', { unit: '202' }),
  entry('kim-lee', 'Lee, Kim'),
  entry('globex-mailroom', 'Globex Mailroom', { company: 'Globex Corporation', group: true }),
  entry('facilities', 'Facilities', { group: true }),
]

function decide(printed: string, more: { company?: string; unit?: string } = {}) {
  const name = parsePersonName(printed)
  return decideRecipient({ ...(name ? { name } : {}), ...more }, directory, policy)
}

describe('decideRecipient: people', () => {
  it.each([
    ['ROBERT SMITH', 'robert-smith'],
    ['Robert Smith', 'robert-smith'],
    ['SMITH, ROBERT', 'robert-smith'],
    ['SMITH ROBERT', 'robert-smith'], // family name first, no comma
    ['MR ROBERT SMITH JR', 'robert-smith'],
    ['BOB SMITH', 'robert-smith'], // nickname table
    ['ROBBIE SMITH', 'robert-smith'],
    ['LIZ TAYLOR', 'liz-taylor'], // nickname table
    ['BETSY TAYLOR', 'liz-taylor'], // alias and table
    ['SEAN OBRIEN', 'sean-obrien'], // accent and apostrophe
    ["SEAN O'BRIEN", 'sean-obrien'],
    ['JOSE ALVAREZ', 'jose-alvarez'],
    ['MARY JONES WRIGHT', 'mary-jones-wright'], // hyphen printed as a space
    ['MARY JONES-WRIGHT', 'mary-jones-wright'],
    ['KIM LEE', 'kim-lee'], // the directory keeps "Lee, Kim"
    ['ROBERTA SMYTH', 'roberta-smyth'],
  ])('%s is chosen as %s', (printed, contactId) => {
    const d = decide(printed)
    expect(d.chosen?.contactId).toBe(contactId)
    expect(d.doubt).toBeUndefined()
    expect(d.suggestions[0]?.contactId).toBe(contactId)
  })

  it('never chooses on an initial alone when two contacts share the surname', () => {
    for (const printed of ['R SMITH', 'R. SMITH', 'SMITH, R']) {
      const d = decide(printed)
      expect(d.chosen, printed).toBeUndefined()
      expect(d.doubt, printed).toBe('several_matches')
      expect(
        d.suggestions
          .map((s) => s.contactId)
          .slice(0, 2)
          .sort(),
      ).toEqual(['rachel-smith', 'robert-smith'])
    }
  })

  it('a printed initial is the first name’s before a middle name’s', () => {
    const people = [entry('joan-meier', 'Joan Meier'), entry('priya-j-meier', 'Priya J. Meier')]
    const d = decideRecipient({ name: parsePersonName('J. MEIER')! }, people, policy)
    expect(d.suggestions.map((s) => s.contactId)).toEqual(['joan-meier', 'priya-j-meier'])
    expect(d.chosen).toBeUndefined() // an initial alone, two Meiers
  })

  it('an alias is compared folded and whole: "Søren" is SOREN, "Mary-Ann" is MARY ANN or MARY-ANN', () => {
    const people = [
      entry('soren-k', 'Samuel Kierkegaard', { aliases: ['Søren'] }),
      entry('sven-k', 'Sven Kierkegaard'),
      entry('mary-ann-b', 'Marianne Brightwater', { aliases: ['Mary-Ann'] }),
      entry('annette-b', 'Annette Brightwater'),
    ]
    for (const [printed, contactId] of [
      ['SOREN KIERKEGAARD', 'soren-k'],
      ['SØREN KIERKEGAARD', 'soren-k'],
      ['MARY ANN BRIGHTWATER', 'mary-ann-b'],
      ['MARY-ANN BRIGHTWATER', 'mary-ann-b'],
      ['BRIGHTWATER, MARY ANN', 'mary-ann-b'],
    ] as const) {
      const d = decideRecipient({ name: parsePersonName(printed)! }, people, policy)
      expect(d.chosen, printed).toMatchObject({ contactId, first: 'alias' })
    }
  })

  it('a surname alone is never enough', () => {
    const d = decide('SMITH')
    expect(d.chosen).toBeUndefined()
    expect(d.doubt).toBe('several_matches')
  })

  it('tells two people of one name apart by their unit, and doubts without it', () => {
    expect(decide('JOHN PARK', { unit: '202' }).chosen?.contactId).toBe('john-park-202')
    expect(decide('JOHN PARK', { unit: '101' }).chosen?.contactId).toBe('john-park-101')
    const d = decide('JOHN PARK')
    expect(d.chosen).toBeUndefined()
    expect(d.doubt).toBe('several_matches')
  })

  it('of two people a printed name fits alike, puts first the one whose middle names the label agrees with, and doubts', () => {
    // Ids sort the other way: the order comes from the names.
    for (const names of [
      ['Roberta W. Schmidt', 'Roberta Schmidt'],
      ['Roberta Schmidt', 'Roberta W. Schmidt'],
    ]) {
      const people = names.map((n, i) => entry(`${i === 0 ? 'a' : 'b'}-${n}`, n))
      const name = parsePersonName('ROBERTA SCHMIDT')!
      const d = decideRecipient({ name }, people, policy)
      expect(d.suggestions.map((s) => s.score)).toEqual([0.95, 0.95])
      expect(d.suggestions[0]?.contactId).toMatch(/-Roberta Schmidt$/)
      expect(d.chosen).toBeUndefined()
      expect(d.doubt).toBe('several_matches')
      // Printed with the middle initial: the one whose middle name it is comes first.
      const w = decideRecipient({ name: parsePersonName('ROBERTA W SCHMIDT')! }, people, policy)
      expect(w.suggestions[0]?.contactId).toMatch(/-Roberta W. Schmidt$/)
      expect(w.chosen).toBeUndefined()
    }
  })

  it('a unit that disagrees takes a whole-name match below the threshold', () => {
    const d = decide('ROBERT SMITH', { unit: '999' })
    expect(d.chosen).toBeUndefined()
    expect(d.suggestions[0]?.contactId).toBe('robert-smith')
  })

  it('misread letters suggest the right contact without choosing it', () => {
    const d = decide('R0BERT SMlTH')
    expect(d.chosen).toBeUndefined()
    expect(d.suggestions[0]?.contactId).toBe('robert-smith')
    // Roberta Smyth is as near to that misreading: a doubt between several.
    expect(d.doubt).toBe('several_matches')
    const taylor = decide('ELIZABETH TAVLOR')
    expect(taylor).toMatchObject({
      doubt: 'partial_match',
      suggestions: [{ contactId: 'liz-taylor' }, { contactId: 'ming-taylor' }],
    })
  })

  it('confusable surnames close together are a doubt, with both suggested', () => {
    const d = decide('ROBERT SMYTH')
    expect(d.chosen).toBeUndefined()
    expect(d.suggestions.map((s) => s.contactId)).toContain('roberta-smyth')
    expect(d.suggestions.map((s) => s.contactId)).toContain('robert-smith')
  })

  it('nobody near the name: no_match and no suggestions', () => {
    expect(decide('ZEBEDEE QUUX')).toEqual({ doubt: 'no_match', suggestions: [] })
    expect(decideRecipient({}, directory, policy)).toEqual({ doubt: 'no_match', suggestions: [] })
  })

  it('offers at most three suggestions, best first', () => {
    const d = decide('SMITH')
    expect(d.suggestions.length).toBeLessThanOrEqual(3)
    const scores = d.suggestions.map((s) => s.score)
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
  })

  it('group contacts are not people', () => {
    expect(decide('GLOBEX MAILROOM').chosen).toBeUndefined()
  })
})

describe('decideRecipient: business mail', () => {
  it('goes to the group contact named after the company', () => {
    const d = decideRecipient({ company: 'GLOBEX CORPORATION' }, directory, policy)
    expect(d.chosen?.contactId).toBe('globex-mailroom')
  })

  it('offers the site group contacts when no company matches', () => {
    const d = decideRecipient({ company: 'UNKNOWN HOLDINGS LTD' }, directory, policy, {
      fallback: [directory.find((e) => e.contactId === 'facilities')!],
    })
    expect(d.chosen).toBeUndefined()
    expect(d.doubt).toBe('business')
    expect(d.suggestions.map((s) => s.contactId)).toEqual(['facilities'])
  })
})

describe('scorePerson', () => {
  it('scores a whole agreeing name 0.95 and a unit on top 1', () => {
    const name = parsePersonName('ROBERT SMITH')!
    expect(scorePerson({ name }, directory[0]!).score).toBe(0.95)
    expect(scorePerson({ name, unit: 'STE 400' }, directory[0]!).score).toBe(1)
    expect(scorePerson({ name, unit: '400' }, { ...directory[0]!, unit: 'Suite 400' }).score).toBe(1)
    expect(scorePerson({ name, unit: '401' }, directory[0]!).score).toBe(0.85)
  })

  it('says how the first name matched', () => {
    const e = directory[0]!
    expect(scorePerson({ name: parsePersonName('ROBERT SMITH')! }, e).first).toBe('name')
    expect(scorePerson({ name: parsePersonName('BOB SMITH')! }, e).first).toBe('nickname')
    expect(scorePerson({ name: parsePersonName('R SMITH')! }, e).first).toBe('initial')
    expect(scorePerson({ name: parsePersonName('ROBRT SMITH')! }, e).first).toBe('similar')
    expect(scorePerson({ name: parsePersonName('XAVIER SMITH')! }, e).first).toBe('none')
  })
})

describe('nicknames', () => {
  it.each([
    ['bob', 'robert'],
    ['bill', 'william'],
    ['liz', 'elizabeth'],
    ['peggy', 'margaret'],
    ['dick', 'richard'],
    ['jack', 'john'],
    ['al', 'alfred'],
    ['al', 'albert'],
  ])('%s is a form of %s', (a, b) => {
    expect(sameGivenName(a, b)).toBe(true)
    expect(sameGivenName(b, a)).toBe(true)
  })

  it('does not join different names', () => {
    expect(sameGivenName('robert', 'richard')).toBe(false)
    expect(sameGivenName('albert', 'alfred')).toBe(false) // both Al, yet not each other
    expect(sameGivenName('zorro', 'zorro')).toBe(true)
  })

  it('lists the forms of a name', () => {
    expect(givenNameForms('bob')).toEqual(expect.arrayContaining(['bob', 'robert', 'rob', 'bobby']))
    expect(givenNameForms('zorro')).toEqual(['zorro'])
  })
})
