import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'
import { api } from '../support/factories.js'
import { useTestApp } from '../support/use-test-app.js'

const t = useTestApp()

async function workbook(rows: unknown[][]): Promise<string> {
  const wb = new ExcelJS.Workbook()
  const ws = wb.addWorksheet('Residents')
  for (const r of rows) ws.addRow(r)
  return Buffer.from(await wb.xlsx.writeBuffer()).toString('base64')
}

describe('roster files: XLSX, externalId, deactivations', () => {
  it('reads the first worksheet of a workbook as a roster, dates and numbers as text', async () => {
    const a = api(t, await t.newClient())
    const xlsx = await workbook([
      [],
      ['Resident ID', 'First Name', 'Last Name', 'Email', 'Apartment', 'Status', 'Employee Number', 'Notes'],
      ['R-1', 'Ada', 'Lovelace', 'ada@example.com', '4B', 'active', 1001, 'x'],
      ['R-2', 'Alan', 'Turing', 'alan@example.com', 12, 'left', 1002, ''],
    ])
    const read = await a.ok('POST', '/api/v1/contacts/import/xlsx', { xlsx }, 200)
    expect(read.delimiter).toBe('')
    expect(read.columns.map((c: { field: string | null }) => c.field)).toEqual([
      'personalId',
      'firstName',
      'lastName',
      'email',
      'unit',
      'status',
      null,
      null,
    ])
    expect(read.rows).toEqual([
      {
        line: 3,
        row: { personalId: 'R-1', name: 'Ada Lovelace', email: 'ada@example.com', unit: '4B', status: 'active' },
      },
      {
        line: 4,
        row: { personalId: 'R-2', name: 'Alan Turing', email: 'alan@example.com', unit: '12', status: 'left' },
      },
    ])
    expect(read.report).toMatchObject({ created: 2, invalid: 0 })
    const bad = await a.call('POST', '/api/v1/contacts/import/xlsx', {
      xlsx: Buffer.from('not a workbook').toString('base64'),
    })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().errors[0].additionalParameters).toBe('xlsx')
  })

  it('refuses workbooks past the limits before reading them, naming the limit, and reads rows no wider than the header', async () => {
    const a = api(t, await t.newClient())
    const small = Buffer.from(
      await workbook([
        ['Name', 'Email'],
        ['Ada', 'ada@example.com'],
      ]),
      'base64',
    )
    // A zip bomb as the central directory tells it: one entry claims 3.75 GB unpacked.
    const bomb = Buffer.from(small)
    const header = bomb.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]))
    bomb.writeUInt32LE(0xf0000000, header + 24)
    const refused = await a.call('POST', '/api/v1/contacts/import/xlsx', { xlsx: bomb.toString('base64') })
    expect(refused.statusCode).toBe(400)
    expect(refused.json().errors[0]).toMatchObject({ additionalParameters: 'xlsx' })
    expect(refused.body).toMatch(/more than 64 MB/)
    const rows: unknown[][] = [['Name']]
    for (let i = 0; i <= 5000; i++) rows.push([`Person ${i}`])
    const long = await a.call('POST', '/api/v1/contacts/import/xlsx', { xlsx: await workbook(rows) })
    expect(long.statusCode).toBe(400)
    expect(long.body).toMatch(/more than 5000 rows/)
    const wideRow: unknown[] = ['Bo', 'bo@example.com']
    wideRow[300] = 'far away'
    const wide = await a.ok(
      'POST',
      '/api/v1/contacts/import/xlsx',
      { xlsx: await workbook([['Name', 'Email'], wideRow]) },
      200,
    )
    expect(wide.rows).toEqual([{ line: 2, row: { name: 'Bo', email: 'bo@example.com' } }])
  })

  it('upserts by externalId, then email; deactivates only the rows that say so; the dry run shows each', async () => {
    const a = api(t, await t.newClient())
    const first = await a.ok(
      'POST',
      '/api/v1/contacts/import',
      {
        rows: [
          { name: 'Ada Lovelace', email: 'ada@example.com', externalId: 'HR-1', unit: '4B' },
          { name: 'Alan Turing', email: 'alan@example.com', externalId: 'HR-2' },
          { name: 'Grace Hopper', email: 'grace@example.com' },
        ],
      },
      200,
    )
    expect(first).toMatchObject({ created: 3, deactivated: 0 })
    const ada = (await a.ok('GET', '/api/v1/contacts?query=ada@', undefined, 200)).contacts[0]
    expect(ada).toMatchObject({ externalId: 'HR-1', unit: '4B', source: 'csv', status: 'active' })

    const rows = [
      // By externalId, whatever the email now says.
      { name: 'Ada King', email: 'ada.king@example.com', externalId: 'HR-1' },
      // Alan left.
      { name: 'Alan Turing', externalId: 'HR-2', status: 'inactive' },
      // Grace is matched by email and gets her id.
      { name: 'Grace Hopper', email: 'GRACE@example.com', externalId: 'HR-3' },
      // A status nobody understands.
      { name: 'Bad', externalId: 'HR-4', status: 'maybe' },
    ]
    const dry = await a.ok('POST', '/api/v1/contacts/import', { rows, dryRun: true }, 200)
    expect(dry).toMatchObject({ created: 0, updated: 2, deactivated: 1, unchanged: 0, invalid: 1 })
    expect(dry.rows.map((r: { outcome: string }) => r.outcome)).toEqual([
      'updated',
      'deactivated',
      'updated',
      'invalid',
    ])
    expect(dry.rows[1].changes).toEqual(['status'])
    expect(dry.rows[3].errors).toEqual([{ field: 'status', message: expect.stringMatching(/active or inactive/) }])
    expect((await a.ok('GET', '/api/v1/contacts?query=alan@', undefined, 200)).contacts[0].status).toBe('active')

    const done = await a.ok('POST', '/api/v1/contacts/import', { rows: rows.slice(0, 3) }, 200)
    expect(done).toMatchObject({ updated: 2, deactivated: 1 })
    const all = (await a.ok('GET', '/api/v1/contacts?limit=10', undefined, 200)).contacts
    expect(all).toHaveLength(3)
    expect(all.find((c: { externalId?: string }) => c.externalId === 'HR-1')).toMatchObject({
      name: 'Ada King',
      email: 'ada.king@example.com',
    })
    expect(all.find((c: { externalId?: string }) => c.externalId === 'HR-2')).toMatchObject({ status: 'inactive' })
    expect(all.find((c: { externalId?: string }) => c.externalId === 'HR-3')).toMatchObject({ name: 'Grace Hopper' })

    // Never overwrite-all: a file with one person leaves the others alone.
    const one = await a.ok('POST', '/api/v1/contacts/import', { rows: [{ name: 'Ada King', externalId: 'HR-1' }] }, 200)
    expect(one).toMatchObject({ unchanged: 1, deactivated: 0, updated: 0 })
    expect((await a.ok('GET', '/api/v1/contacts?status=active&limit=10', undefined, 200)).totalCount).toBe(2)

    // An externalId of one contact with the email of another: refused, nothing merged.
    const clash = await a.call('POST', '/api/v1/contacts/import', {
      rows: [{ name: 'Ada King', externalId: 'HR-1', email: 'grace@example.com' }],
    })
    expect(clash.statusCode).toBe(400)
    expect(clash.json().errors[0].additionalParameters).toBe('rows[0].email')
  })
})
