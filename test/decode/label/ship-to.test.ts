import { describe, expect, it } from 'vitest'
import { findShipTo, isCityLine, unitOf } from '../../../src/decode/index.js'

const ups = [
  'JOHN SENDER',
  'ACME SUPPLY CO',
  '100 FACTORY RD',
  'DAYTON OH 45402',
  '',
  'SHIP TO:',
  'ROBERT SMITH',
  'GLOBEX CORPORATION',
  '500 MAIN ST STE 400',
  'SPRINGFIELD IL 62704',
  '',
  'UPS GROUND',
  'TRACKING #: 1Z 999 AA1 01 2345 6784',
]

describe('findShipTo', () => {
  it('reads the lines after SHIP TO: name, company, street with its suite, city', () => {
    expect(findShipTo(ups)).toEqual({
      lines: ['ROBERT SMITH', 'GLOBEX CORPORATION', '500 MAIN ST STE 400', 'SPRINGFIELD IL 62704'],
      nameLine: 'ROBERT SMITH',
      name: { first: 'robert', middle: [], last: 'smith', initialOnly: false, commaForm: false },
      company: 'GLOBEX CORPORATION',
      addressLines: ['500 MAIN ST STE 400', 'SPRINGFIELD IL 62704'],
      unit: '400',
      foundBy: 'marker',
    })
  })

  it('takes the text after the marker on its own line', () => {
    const s = findShipTo(['TO: SMITH, ROBERT', '12 ELM AVE APT 3B', 'BOSTON, MA 02110-1234'])
    expect(s?.nameLine).toBe('SMITH, ROBERT')
    expect(s?.name?.last).toBe('smith')
    expect(s?.unit).toBe('3B')
    expect(s?.addressLines).toEqual(['12 ELM AVE APT 3B', 'BOSTON, MA 02110-1234'])
  })

  it.each(['SHIP TO', 'SHIP-TO:', 'SHIPTO', 'DELIVER TO:', 'SHIP T0:', 'TO', 'Ship To:'])(
    'knows the marker %j',
    (m) => {
      expect(
        findShipTo(['FROM: A SENDER', '1 A ST', 'X NY 10001', m, 'ANNA LEE', '2 B ST', 'Y CA 90001'])?.nameLine,
      ).toBe('ANNA LEE')
    },
  )

  it('without a marker, takes the largest address block that does not follow FROM', () => {
    const s = findShipTo([
      'FROM:',
      'BIG SHOP INC',
      '1 RETAIL WAY',
      'SEATTLE WA 98101',
      '',
      'MARY JONES',
      'ATTN RECEIVING',
      '200 HARBOR BLVD',
      'MAIL STOP B-12',
      'OAKLAND CA 94607',
    ])
    expect(s?.foundBy).toBe('address')
    expect(s?.nameLine).toBe('MARY JONES')
    expect(s?.company).toBe('RECEIVING') // ATTN a department, not a person
    expect(s?.unit).toBe('B-12')
  })

  it('reads ATTN and C/O lines as the person, the rest as the company', () => {
    const s = findShipTo(['SHIP TO:', 'INITECH LLC', 'ATTN: PETER GIBBONS', '4120 FREIDRICH LN', 'AUSTIN TX 78744'])
    expect(s?.nameLine).toBe('PETER GIBBONS')
    expect(s?.company).toBe('INITECH LLC')
    const c = findShipTo(['SHIP TO:', 'C/O LINDA PARK', 'HOTEL ROYAL', '5 KING ST', 'TORONTO ON M5V 2T6'])
    expect(c?.nameLine).toBe('LINDA PARK')
  })

  it('business mail: a company and no person', () => {
    const s = findShipTo(['SHIP TO:', 'ACCOUNTS PAYABLE', 'GLOBEX CORPORATION', '500 MAIN ST', 'SPRINGFIELD IL 62704'])
    expect(s?.name).toBeUndefined()
    expect(s?.company).toBe('ACCOUNTS PAYABLE')
  })

  it('stops at the carrier fields and keeps OCR confidence', () => {
    const s = findShipTo([
      { text: 'SHIP TO:', confidence: 90 },
      { text: 'KIM NGUYEN', confidence: 80 },
      { text: 'WEIGHT: 2 LBS', confidence: 70 },
    ])
    expect(s?.lines).toEqual(['KIM NGUYEN'])
    expect(s?.confidence).toBe(80)
  })

  it('drops the specks OCR reads at the edge of a photo', () => {
    const s = findShipTo(['| SHIP TO:', '| CARLSEN, VICTORIA', '| 7208 OAK AVE', '| OAKLAND CA 94607'])
    expect(s?.nameLine).toBe('CARLSEN, VICTORIA')
    expect(s?.addressLines).toEqual(['7208 OAK AVE', 'OAKLAND CA 94607'])
  })

  it('reads a name whose letters OCR took for digits or a bracket, and highlights the line as read', () => {
    for (const [line, first, middle, last] of [
      ["STEPHEN 0'BRYAN", 'stephen', [], "o'bryan"],
      ['R0BERT SM1TH', 'robert', [], 'smith'],
      ['Pat ] Haris', 'pat', ['j'], 'haris'],
      ['JAMES | KAT5', 'james', ['i'], 'kats'],
      ['0LGA 8ROWN', 'olga', [], 'brown'],
    ] as const) {
      const s = findShipTo(['SHIP TO:', line, '500 MAIN ST', 'SPRINGFIELD IL 62704'])
      expect(s?.nameLine, line).toBe(line)
      expect(s?.name, line).toMatchObject({ first, middle, last })
      expect(s?.company, line).toBeUndefined()
    }
  })

  it('leaves lines whose digits are digits: a company, a mail stop, an ordinal', () => {
    for (const line of ['1ST NATIONAL', 'JOHN SMITH M5-101', 'ACME 5 STAR', 'B10 MEDICAL', 'constructor toString 7']) {
      const s = findShipTo(['SHIP TO:', 'MARY JONES', line, '500 MAIN ST', 'SPRINGFIELD IL 62704'])
      expect(s?.nameLine, line).toBe('MARY JONES')
      expect(s?.company, line).toBe(line)
    }
  })

  it("passes over the carrier's weight column read between the marker and the name", () => {
    // As OCR read a photo turned 2°: the right-hand column ("1 LBS 1 OF 1", "DWT: 10,8,4") after SHIP TO.
    const photo = ['SHIPPING DEPT', 'BIG BOX RETAIL', '1 COMMERCE WAY', 'SEATTLE WA 98101', '', 'SHIP TO:', '']
    const after = ['MAGGIE MOOR', '8596 HILL RD', 'DENVER CO 80202', '', 'UPS GROUND']
    const s = findShipTo([...photo, '11BS 10F1', 'DWT: 10,84', '', ...after])
    expect(s).toMatchObject({
      nameLine: 'MAGGIE MOOR',
      addressLines: ['8596 HILL RD', 'DENVER CO 80202'],
      foundBy: 'marker',
    })
    expect(s?.company).toBeUndefined()
    // A company alone before a blank is the recipient's, not noise.
    const business = findShipTo(['SHIP TO:', 'GLOBEX CORPORATION', '', '500 MAIN ST', 'SPRINGFIELD IL 62704'])
    expect(business?.company).toBe('GLOBEX CORPORATION')
  })

  it('reads on past a blank OCR set between the name and its address, and no further', () => {
    const s = findShipTo(['SHIP TO:', 'J. KOWALSKI', '', '5401 ELM ST MS 241', 'DENVER CO 80202', '', 'UPS GROUND'])
    expect(s).toMatchObject({
      nameLine: 'J. KOWALSKI',
      addressLines: ['5401 ELM ST MS 241', 'DENVER CO 80202'],
      unit: '241',
    })
    // What follows a name that is not an address is not taken into the block.
    const apart = findShipTo(['SHIP TO:', 'J. KOWALSKI', '', 'UPS GROUND', '', '5401 ELM ST', 'DENVER CO 80202'])
    expect(apart).toMatchObject({ lines: ['J. KOWALSKI'], addressLines: [] })
    const noise = findShipTo(['SHIP TO:', 'J. KOWALSKI', '', '"us', 'HARTA'])
    expect(noise).toMatchObject({ lines: ['J. KOWALSKI'], nameLine: 'J. KOWALSKI' })
    expect(noise?.company).toBeUndefined()
  })

  it('is undefined when the text has no recipient block', () => {
    expect(findShipTo([])).toBeUndefined()
    expect(findShipTo(['UPS GROUND', '1Z 999 AA1 01 2345 6784'])).toBeUndefined()
  })
})

describe('address lines', () => {
  it.each([
    ['SPRINGFIELD IL 62704', true],
    ['SPRINGFIELD, IL 62704-1234', true],
    ['ORLANDO FL 32801', true],
    ['TORONTO ON M5V 2T6', true],
    ['LONDON SW1A 1AA', true],
    ['75008 PARIS', true],
    ['ROBERT SMITH', false],
    ['500 MAIN ST', false],
    ['8831 HILL RD', false],
    ['10115 BERLIN', true],
  ])('isCityLine(%j) is %s', (line, city) => {
    expect(isCityLine(line)).toBe(city)
  })

  it.each([
    ['500 MAIN ST STE 400', '400'],
    ['SUITE 12A', '12A'],
    ['APT #5', '5'],
    ['MAIL STOP B-12', 'B-12'],
    ['MS 44', '44'],
    ['ROOM 101', '101'],
    ['# 7', '7'],
    ['MS JANE DOE', undefined],
    ['ORLANDO FL 32801', undefined],
    ['DEPT OF PHYSICS', undefined],
    ['STEWART ROAD', undefined],
    ['FLOOR 3', '3'],
  ])('unitOf(%j) is %j', (line, unit) => {
    expect(unitOf(line)).toBe(unit)
  })
})
