import { describe, expect, it } from 'vitest'
import { checkCustomFieldValues, type CustomFieldDef } from '../../src/customfields/service.js'
import { ValidationErrors } from '../../src/platform/kit/errors.js'

const def = (
  customFieldId: string,
  dataType: CustomFieldDef['dataType'],
  extra: Partial<CustomFieldDef> = {},
): CustomFieldDef => ({
  customFieldId,
  name: customFieldId.replace(/^cf_/, '').toUpperCase(),
  status: 'ACTIVE',
  dataType,
  required: false,
  ...extra,
})

const TEXT = def('cf_text', 'TEXT')
const NUM = def('cf_num', 'NUMBER')
const DATE = def('cf_date', 'DATE')
const BOOL = def('cf_bool', 'BOOLEAN')
const LIST = def('cf_list', 'LIST', { options: ['Red', 'Green', 'Blue', '10'] })
const DEFS = [TEXT, NUM, DATE, BOOL, LIST]

const P = 'package.customFields'
/** The value stored for one input, or the thrown problems. */
function one(d: CustomFieldDef, value: unknown): string | Array<{ field: string; description: string; code?: string }> {
  try {
    const out = checkCustomFieldValues([d], [{ customFieldId: d.customFieldId, value }], [], P)
    return out.find((v) => v.customFieldId === d.customFieldId)?.value ?? '(removed)'
  } catch (e) {
    if (e instanceof ValidationErrors) return e.items
    throw e
  }
}
const stored = (d: CustomFieldDef, value: unknown) => expect(one(d, value), JSON.stringify(value))
const refused = (d: CustomFieldDef, value: unknown) => {
  const r = one(d, value)
  expect(Array.isArray(r), `${JSON.stringify(value)} → ${JSON.stringify(r)}`).toBe(true)
  const items = r as Array<{ field: string; description: string; code?: string }>
  expect(items).toHaveLength(1)
  expect(items[0]).toMatchObject({ field: `${P}[0].value`, code: 'CUSTOM_FIELD_VALUE_INVALID' })
  expect(items[0]!.description).toContain(`"${d.name}"`)
}

describe('checkCustomFieldValues: one value per type', () => {
  it('TEXT: strings, numbers and booleans as text, at most 1000 characters, trimmed', () => {
    stored(TEXT, 'hello').toBe('hello')
    stored(TEXT, '  padded  ').toBe('padded')
    stored(TEXT, 42).toBe('42')
    stored(TEXT, true).toBe('true')
    stored(TEXT, 'x'.repeat(1000)).toBe('x'.repeat(1000))
    refused(TEXT, 'x'.repeat(1001))
  })

  it('NUMBER: finite decimals, stored without a leading + and without exponents', () => {
    for (const [input, out] of [
      [42, '42'],
      [-3.5, '-3.5'],
      [0, '0'],
      ['17', '17'],
      [' -0.25 ', '-0.25'],
      ['+8', '8'],
      ['.5', '.5'],
      ['007', '007'],
      [1e21, '1000000000000000000000'],
      [1.5e-7, '0.00000015'],
    ] as const) {
      stored(NUM, input).toBe(out)
    }
    for (const bad of [
      'abc',
      '1e5',
      '1,5',
      '1.2.3',
      '--1',
      'NaN',
      'Infinity',
      '0x10',
      true,
      Number.NaN,
      Number.POSITIVE_INFINITY,
    ])
      refused(NUM, bad)
  })

  it('DATE: a calendar date YYYY-MM-DD or an ISO 8601 timestamp with a zone', () => {
    for (const ok of [
      '2024-11-27',
      '2024-02-29',
      '2024-11-27T18:30:00.000Z',
      '2024-11-27T18:30Z',
      '2024-11-27T18:30:00+05:30',
      '2024-11-27T23:59:59.123456-08:00',
    ])
      stored(DATE, ok).toBe(ok)
    for (const bad of [
      '2023-02-29',
      '2024-13-01',
      '2024-00-10',
      '2024-11-31',
      '27/11/2024',
      '2024-11-27T18:30:00',
      '2024-11-27T24:00:00Z',
      '2024-11-27T18:60Z',
      '2024-11-27T18:30:00+25:00',
      '2024-1-5',
      'tomorrow',
      20241127,
      true,
    ])
      refused(DATE, bad)
  })

  it('BOOLEAN: JSON booleans or the strings true/false (any case), stored lower case', () => {
    stored(BOOL, true).toBe('true')
    stored(BOOL, false).toBe('false')
    stored(BOOL, 'TRUE').toBe('true')
    stored(BOOL, ' False ').toBe('false')
    for (const bad of ['yes', '1', 1, 0, 'truth']) refused(BOOL, bad)
  })

  it("LIST: one of the options ignoring case, stored in the option's spelling", () => {
    stored(LIST, 'red').toBe('Red')
    stored(LIST, ' BLUE ').toBe('Blue')
    stored(LIST, 10).toBe('10')
    for (const bad of ['Purple', 'Re', true, 11]) refused(LIST, bad)
    expect((one(LIST, 'Purple') as Array<{ description: string }>)[0]!.description).toContain('Red, Green, Blue, 10')
  })

  it('refuses values that are not strings, numbers or booleans', () => {
    for (const d of DEFS) for (const bad of [null, undefined, { v: 1 }, ['a']]) refused(d, bad)
  })

  it('treats "" as "no value": the entry is removed', () => {
    for (const d of DEFS) stored(d, '').toBe('(removed)')
    for (const d of DEFS) stored(d, '   ').toBe('(removed)')
  })
})

describe('checkCustomFieldValues: merging and definitions', () => {
  const existing = [
    { customFieldId: 'cf_text', value: 'old' },
    { customFieldId: 'cf_gone', value: 'kept from a deleted field' },
    { customFieldId: 'cf_num', value: '1' },
  ]

  it('replaces entries in place, appends new ones, removes emptied ones, keeps the rest as stored', () => {
    const out = checkCustomFieldValues(
      DEFS,
      [
        { customFieldId: 'cf_bool', value: true },
        { customFieldId: 'cf_text', value: 'new' },
        { customFieldId: 'cf_num', value: '' },
      ],
      existing,
      P,
    )
    expect(out).toEqual([
      { customFieldId: 'cf_text', value: 'new' },
      { customFieldId: 'cf_gone', value: 'kept from a deleted field' },
      { customFieldId: 'cf_bool', value: 'true' },
    ])
  })

  it('returns the stored values unchanged when the input is undefined or empty', () => {
    expect(checkCustomFieldValues(DEFS, undefined, existing, P)).toEqual(existing)
    expect(checkCustomFieldValues(DEFS, [], existing, P)).toEqual(existing)
    expect(checkCustomFieldValues([], undefined, [], P)).toEqual([])
  })

  it('does not re-check stored values against definitions changed since', () => {
    const nowInactive = { ...TEXT, status: 'INACTIVE' as const }
    expect(checkCustomFieldValues([nowInactive, { ...NUM, dataType: 'DATE' }], [], existing, P)).toEqual(existing)
  })

  it('refuses unknown (or deleted) ids, INACTIVE fields and repeated ids, naming the element', () => {
    const inactive = def('cf_off', 'TEXT', { status: 'INACTIVE' })
    try {
      checkCustomFieldValues(
        [...DEFS, inactive],
        [
          { customFieldId: 'cf_text', value: 'ok' },
          { customFieldId: 'cf_nope', value: 'x' },
          { customFieldId: 'cf_off', value: 'x' },
          { customFieldId: 'cf_text', value: 'again' },
          { customFieldId: 'cf_num', value: 'abc' },
        ],
        [],
        P,
      )
      expect.unreachable()
    } catch (e) {
      expect(e).toBeInstanceOf(ValidationErrors)
      expect((e as ValidationErrors).items.map((i) => [i.field, i.code])).toEqual([
        [`${P}[1].customFieldId`, 'CUSTOM_FIELD_VALUE_INVALID'],
        [`${P}[2].customFieldId`, 'CUSTOM_FIELD_VALUE_INVALID'],
        [`${P}[3].customFieldId`, 'CUSTOM_FIELD_VALUE_INVALID'],
        [`${P}[4].value`, 'CUSTOM_FIELD_VALUE_INVALID'],
      ])
      expect((e as ValidationErrors).items[0]!.description).toContain('cf_nope')
      expect((e as ValidationErrors).items[1]!.description).toContain('"OFF" is inactive')
    }
  })

  it('requires a value for every ACTIVE required field, from the input or the stored values', () => {
    const reqText = def('cf_badge', 'TEXT', { required: true, name: 'Badge number' })
    const reqOff = def('cf_old', 'TEXT', { required: true, status: 'INACTIVE' })
    const defs = [reqText, reqOff, NUM]
    expect(checkCustomFieldValues(defs, [{ customFieldId: 'cf_badge', value: 'B-1' }], [], P)).toEqual([
      { customFieldId: 'cf_badge', value: 'B-1' },
    ])
    expect(
      checkCustomFieldValues(
        defs,
        [{ customFieldId: 'cf_num', value: 2 }],
        [{ customFieldId: 'cf_badge', value: 'B-0' }],
        P,
      ),
    ).toEqual([
      { customFieldId: 'cf_badge', value: 'B-0' },
      { customFieldId: 'cf_num', value: '2' },
    ])
    for (const [input, existingValues] of [
      [undefined, []],
      [[{ customFieldId: 'cf_badge', value: '  ' }], [{ customFieldId: 'cf_badge', value: 'B-0' }]],
    ] as const) {
      try {
        checkCustomFieldValues(defs, input as never, existingValues as never, P)
        expect.unreachable()
      } catch (e) {
        expect((e as ValidationErrors).items).toEqual([
          {
            field: P,
            description: 'Custom field "Badge number" (cf_badge) is required.',
            code: 'CUSTOM_FIELD_REQUIRED',
          },
        ])
      }
    }
  })

  it('reports a bad value of a required field once, not also as missing, and lists every problem together', () => {
    const reqNum = def('cf_floor', 'NUMBER', { required: true })
    const reqDate = def('cf_due', 'DATE', { required: true })
    try {
      checkCustomFieldValues(
        [reqNum, reqDate, BOOL],
        [
          { customFieldId: 'cf_floor', value: 'ten' },
          { customFieldId: 'cf_bool', value: 'maybe' },
        ],
        [],
        'x',
      )
      expect.unreachable()
    } catch (e) {
      expect((e as ValidationErrors).items.map((i) => i.field)).toEqual(['x[0].value', 'x[1].value', 'x'])
      expect((e as ValidationErrors).items[2]!.description).toContain('"DUE"')
    }
  })
})
