import { parse as parseCsv } from 'csv-parse/sync'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { csvRecords } from '../../src/search/model/csv.js'
import { checkMapping, csvCell, isMappable } from '../../src/search/model/mapping.js'
import { parseSearch, parseSort, parseStatuses } from '../../src/search/model/parse.js'
import { ValidationErrors } from '../../src/platform/kit/errors.js'

describe('csvCell', () => {
  it('neutralises anything a spreadsheet would run as a formula', () => {
    for (const s of ['=1+1', '+1', '-1+2', '@SUM(A1)', '\tx', '\rx']) expect(csvCell(s)).toBe(`'${s}`)
    fc.assert(fc.property(fc.string(), (s) => !/^[=+\-@\t\r]/.test(csvCell(s))))
  })
  it('leaves numbers, booleans and plain text alone; joins arrays; writes objects as JSON', () => {
    expect(csvCell(-5)).toBe('-5')
    expect(csvCell(true)).toBe('true')
    expect(csvCell('Shelf 1')).toBe('Shelf 1')
    expect(csvCell(['a', 'b'])).toBe('a|b')
    expect(csvCell({ routeName: 'R1' })).toBe('{"routeName":"R1"}')
  })
})

describe('custom search mapping', () => {
  it("knows the record's paths, nested ones and custom fields", () => {
    for (const p of [
      'trackingNumber',
      'receiver.name',
      'receiver.location.locationHierarchy',
      'currentLocation.topTier.name',
      'carrier.carrierId',
      'currentRoute.routeName',
      'customFields.Department',
      'customFields',
    ])
      expect(isMappable(p), p).toBe(true)
    for (const p of ['receiver.shoeSize', 'nope', 'carrier.name.first', '', 'customFields.'])
      expect(isMappable(p), p).toBe(false)
  })
  it('keeps body order and reports every unknown field and duplicate label', () => {
    expect(checkMapping({ comment: 'B', trackingNumber: 'A' }).map((c) => c.label)).toEqual(['B', 'A'])
    try {
      checkMapping({ a: 'X', trackingNumber: 'Y', comment: 'Y', damaged: '' })
      expect.unreachable()
    } catch (e) {
      expect((e as ValidationErrors).items.map((i) => i.field)).toEqual(['a', 'comment', 'damaged'])
    }
  })
})

describe('search parameters', () => {
  it('parses field:value with positions and enforces the contains minimum', () => {
    const problems: Array<{ field: string; description: string }> = []
    expect(parseSearch('receiver.name:Ada: Lovelace', 'contains', problems)).toEqual({
      field: 'receiver.name',
      value: 'Ada: Lovelace',
      position: 'contains',
    })
    expect(parseSearch('trackingNumber:1Z', 'starts', problems)).toEqual({
      field: 'trackingNumber',
      value: '1Z',
      position: 'starts',
    })
    expect(problems).toEqual([])
    for (const bad of ['nofield', ':x', 'color:red', 'trackingNumber:', 'trackingNumber:1Z']) {
      const p: Array<{ field: string; description: string }> = []
      expect(parseSearch(bad, 'contains', p)).toBeUndefined()
      expect(p[0]!.field).toBe('search')
    }
  })
  it('expands UNDELIVERED and refuses unknown statuses', () => {
    const p: Array<{ field: string; description: string }> = []
    expect(parseStatuses('undelivered', p)!.sort()).toEqual([
      'DAMAGED',
      'IN_LOCKER',
      'IN_TRANSIT',
      'OUT_FOR_DELIVERY',
      'READY_FOR_PICKUP',
      'RECEIVED',
    ])
    expect(parseStatuses('DELIVERED, picked_up', p)).toEqual(['DELIVERED', 'PICKED_UP'])
    expect(p).toEqual([])
    parseStatuses('LOST', p)
    expect(p.map((x) => x.field)).toEqual(['status'])
  })
  it('parses sort with its default and refuses other fields', () => {
    const p: Array<{ field: string; description: string }> = []
    expect(parseSort(undefined, p)).toEqual({ field: 'insertTimestamp', desc: true })
    expect(parseSort('receiver.name,asc', p)).toEqual({ field: 'receiver.name', desc: false })
    expect(parseSort('deliveryTime', p)).toEqual({ field: 'deliveryTime', desc: false })
    parseSort('weight,DESC', p)
    expect(p.map((x) => x.field)).toEqual(['sort'])
  })
})

describe('CSV records (RFC 4180)', () => {
  it('quotes fields with a comma, a quote or any line break, doubles quotes, ends records with CRLF', () => {
    expect(
      csvRecords([
        ['a', 'b,c', 'd"e', 'f\ng', 'h\ri', 'j\r\nk', ''],
        [' x ', 'é', ''],
      ]),
    ).toBe('a,"b,c","d""e","f\ng","h\ri","j\r\nk",\r\n x ,é,\r\n')
  })

  it('reads back to the same cells with a CSV parser, whatever the text', () => {
    fc.assert(
      fc.property(
        fc.array(fc.array(fc.string({ minLength: 1 }), { minLength: 2, maxLength: 5 }), { minLength: 1, maxLength: 5 }),
        (rows) => {
          const width = rows[0]!.length
          const square = rows.map((r) => Array.from({ length: width }, (_, i) => r[i] ?? 'x'))
          expect(parseCsv(csvRecords(square), { record_delimiter: '\r\n', relax_column_count: false })).toEqual(square)
        },
      ),
    )
  })
})
