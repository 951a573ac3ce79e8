import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp, useClient } from '../support/use-test-app.js'
import { api } from '../support/factories.js'

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
beforeAll(async () => {
  a = api(t, me)
})

const decode = async (raw: string) => {
  const res = await a.call('GET', `/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(raw)}`)
  expect(res.statusCode, res.body).toBe(200)
  return res.json()
}

/** What a clerk relies on: the number, the stated carrier, and each candidate with its link. */
const essence = (body: {
  package: { trackingNumber: string | null; carrier?: unknown }
  decodedCarriers: unknown[]
}) => ({
  trackingNumber: body.package.trackingNumber,
  carrier: body.package.carrier,
  decodedCarriers: body.decodedCarriers,
})

describe('decode over HTTP: human-readable forms read as the bare number', () => {
  it.each([
    ['1Z5R89390357567127', ['1Z 5R8 939 03 5756 712 7', '1z-5r89-3903-5756-7127', '1Z.5R89.3903.5756.7127']],
    [
      '9400111201080805483016',
      [
        '9400 1112 0108 0805 4830 16',
        '9400-1112-0108-0805-4830-16',
        '420 90210 9400 1112 0108 0805 4830 16',
        '42090210-1234 9400111201080805483016',
      ],
    ],
    ['9205590164917312751089', ['9205.5901.6491.7312.7510.89']],
    ['986578788855', ['9865 7878 8855', '9865-7878-8855']],
    ['RB123456785DE', ['rb 123 456 785 de', 'RB-123456785-DE']],
    ['C11031500001879', ['C 110 31 500 00187 9', 'c1103-1500-0018-79']],
    ['TBA502887274000', ['TBA 5028 8727 4000', 'tba-502887274000']],
    ['SP029692510000920746', ['SP 0296 9251 0000 9207 46']],
    ['LTN74207623N1', ['LTN 7420 7623 N1', 'ltn74207623n1']],
    ['1LS71190136181271', ['1LS7119013618127-1']],
  ])('%s', async (bare, forms) => {
    const expected = essence(await decode(bare))
    expect(expected.decodedCarriers.length).toBeGreaterThan(0)
    for (const form of forms) {
      const got = essence(await decode(form))
      expect(got.trackingNumber, form).toBe(expected.trackingNumber)
      expect(got.carrier, form).toEqual(expected.carrier)
      expect(
        got.decodedCarriers.map(({ trackingNumber, carrierId, checkDigitValid, trackingUrl }: any) => ({
          trackingNumber,
          carrierId,
          checkDigitValid,
          trackingUrl,
        })),
        form,
      ).toEqual(
        expected.decodedCarriers.map(({ trackingNumber, carrierId, checkDigitValid, trackingUrl }: any) => ({
          trackingNumber,
          carrierId,
          checkDigitValid,
          trackingUrl,
        })),
      )
    }
  })

  it("a 420 + ZIP prefix gives the destination and the bare number's carrier", async () => {
    const body = await decode('420 90210 9400 1112 0108 0805 4830 16')
    expect(body.package).toMatchObject({
      trackingNumber: '9400111201080805483016',
      carrier: { carrierId: 'USPS' },
      destination: { postalCode: '90210', country: 'US' },
    })
  })

  it("every candidate carries its carrier's tracking page for that number; a format without a check says null", async () => {
    const ups = await decode('1Z 5R8 939 03 5756 712 7')
    expect(ups.decodedCarriers).toEqual([
      expect.objectContaining({
        carrierId: 'UPS',
        checkDigitValid: true,
        trackingUrl: 'https://www.ups.com/track?tracknum=1Z5R89390357567127',
      }),
    ])
    const amazon = await decode('TBA 5028 8727 4000')
    expect(amazon.package.carrier).toMatchObject({ carrierId: 'AMAZON' })
    expect(amazon.decodedCarriers).toEqual([
      expect.objectContaining({
        carrierId: 'AMAZON',
        checkDigitValid: null,
        trackingUrl: 'https://track.amazon.com/tracking/TBA502887274000',
      }),
    ])
  })

  it('an S10 item of another post names its posting operator and lists the local posts', async () => {
    const body = await decode('RR 123 456 785 DE')
    expect(body.package.carrier).toBeUndefined()
    expect(body.barcode.fields).toMatchObject({ s10Country: 'DE', s10PostingOperator: 'Deutsche Post' })
    expect(body.decodedCarriers.map((c: { carrierId: string }) => c.carrierId)).toEqual([
      'USPS',
      'CANADA_POST',
      'ROYAL_MAIL',
    ])
  })

  // A bare 92 number may be a consolidator's (decodedCarriers lists them, no carrier is stated); the
  // same number behind a GS1 420 ship-to ZIP is an IMpb, which only USPS prints (issue 25, item 2).
  it('reads 420 + ZIP + a 92 number as USPS with certainty', async () => {
    const bare = essence(await decode('9205590164917312751089'))
    expect(bare.carrier).toBeUndefined()
    const got = essence(await decode('420 02115 9205 5901 6491 7312 7510 89'))
    expect(got.trackingNumber).toBe(bare.trackingNumber)
    expect(got.carrier).toMatchObject({ carrierId: 'USPS' })
  })
})
