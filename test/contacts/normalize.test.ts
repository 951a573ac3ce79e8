import { describe, expect, it } from 'vitest'
import { normalizeForMatch } from '../../src/contacts/service.js'

describe('normalizeForMatch', () => {
  it.each([
    ['Ada Lovelace', 'ada lovelace'],
    ['  ADA   LOVELACE  ', 'ada lovelace'],
    ['José Núñez', 'jose nunez'],
    ['Zoë Saldaña-Perego', 'zoe saldana perego'],
    ["O'Brien, Jr.", 'o brien jr'],
    ['O’Brien', 'o brien'],
    ['Søren Kierkegaard', 'soren kierkegaard'],
    ['Łukasz Straße', 'lukasz strasse'],
    ['Æsir & Œuvre', 'aesir oeuvre'],
    ['ＦＵＬＬ　ＷＩＤＴＨ', 'full width'],
    ['Dr.\tJohn\nDoe', 'dr john doe'],
    ['AT&T / R&D (Dept. 42)', 'at t r d dept 42'],
    ['Müller GmbH', 'muller gmbh'],
    ['Ångström', 'angstrom'],
    ['ﬁnance', 'finance'],
    ['', ''],
    ['  -- ..  ', ''],
    ['李小龍', '李小龍'],
  ])('%j → %j', (input, expected) => {
    expect(normalizeForMatch(input)).toBe(expected)
  })

  it('is idempotent', () => {
    for (const s of ['José  O’Brien-Smith', 'ÅNGSTRÖM & co.', 'x'])
      expect(normalizeForMatch(normalizeForMatch(s))).toBe(normalizeForMatch(s))
  })
})
