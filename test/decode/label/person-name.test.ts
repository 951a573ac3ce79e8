import { describe, expect, it } from 'vitest'
import { nameWords, parsePersonName } from '../../../src/decode/index.js'

describe('parsePersonName', () => {
  it.each([
    ['ROBERT SMITH', { first: 'robert', middle: [], last: 'smith', initialOnly: false, commaForm: false }],
    ['Robert J. Smith', { first: 'robert', middle: ['j'], last: 'smith', initialOnly: false, commaForm: false }],
    ['SMITH, ROBERT', { first: 'robert', middle: [], last: 'smith', initialOnly: false, commaForm: true }],
    ['Smith, Robert J', { first: 'robert', middle: ['j'], last: 'smith', initialOnly: false, commaForm: true }],
    ['R. SMITH', { first: 'r', middle: [], last: 'smith', initialOnly: true, commaForm: false }],
    ['SMITH, R', { first: 'r', middle: [], last: 'smith', initialOnly: true, commaForm: true }],
    ['Dr. Robert Smith Jr.', { first: 'robert', middle: [], last: 'smith', initialOnly: false, commaForm: false }],
    ['MRS JANE DOE-BROWN', { first: 'jane', middle: [], last: 'doe-brown', initialOnly: false, commaForm: false }],
    ["SEAN O'BRIEN", { first: 'sean', middle: [], last: "o'brien", initialOnly: false, commaForm: false }],
    ['SEAN O’BRIEN', { first: 'sean', middle: [], last: "o'brien", initialOnly: false, commaForm: false }],
    ['José Álvarez', { first: 'jose', middle: [], last: 'alvarez', initialOnly: false, commaForm: false }],
    ['Maria de la Cruz', { first: 'maria', middle: [], last: 'de la cruz', initialOnly: false, commaForm: false }],
    [
      'Ludwig van Beethoven',
      { first: 'ludwig', middle: [], last: 'van beethoven', initialOnly: false, commaForm: false },
    ],
    ['ROBERT SMITH, JR', { first: 'robert', middle: [], last: 'smith', initialOnly: false, commaForm: false }],
    ['SMITH JR, ROBERT', { first: 'robert', middle: [], last: 'smith', initialOnly: false, commaForm: true }],
    ['SMITH', { first: '', middle: [], last: 'smith', initialOnly: false, commaForm: false }],
    ['R0BERT SM1TH', { first: 'robert', middle: [], last: 'smlth', initialOnly: false, commaForm: false }],
    ['ROBERT SMITH 2ND', { first: 'robert', middle: [], last: 'smith', initialOnly: false, commaForm: false }],
    ['ROBERT V SMITH', { first: 'robert', middle: ['v'], last: 'smith', initialOnly: false, commaForm: false }],
  ])('%s', (printed, parts) => {
    expect(parsePersonName(printed)).toEqual(parts)
  })

  it('is undefined when nothing of a name is left', () => {
    expect(parsePersonName('')).toBeUndefined()
    expect(parsePersonName('12345')).toBeUndefined()
    expect(parsePersonName('MR.')).toBeUndefined()
  })

  it('folds accents and splits on punctuation, keeping hyphens and apostrophes inside words', () => {
    expect(nameWords('Zoë  Łukasz-Smith, O’Neil')).toEqual(['zoe', 'łukasz-smith', "o'neil"])
  })
})
