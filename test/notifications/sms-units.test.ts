import { describe, expect, it } from 'vitest'
import {
  DEFAULT_CHOICES,
  keywordOf,
  normalizePhone,
  quietUntil,
  resolveChannels,
} from '../../src/notifications/model/channels.js'
import { providerSignature } from '../../src/notifications/model/signature.js'
import { composeText, MAX_SEGMENTS, segmentsOf } from '../../src/notifications/model/text.js'
import type { PackageView } from '../../src/notifications/model/compose.js'

const both = {
  allowed: ['email', 'sms'] as Array<'email' | 'sms'>,
  defaults: { ...DEFAULT_CHOICES.defaults, ARRIVAL: ['sms' as const] },
}
const textable = { phone: '+15550100001', optedIn: true, stopped: false, provider: true }

describe('resolveChannels', () => {
  it('takes the recipient’s choice, else the facility’s default, within what is allowed', () => {
    expect(resolveChannels('ARRIVAL', both, undefined, textable)).toEqual(['sms'])
    expect(resolveChannels('REMINDER', both, undefined, textable)).toEqual(['email'])
    expect(resolveChannels('ARRIVAL', both, { ARRIVAL: ['email', 'sms'] }, textable)).toEqual(['email', 'sms'])
    expect(resolveChannels('ARRIVAL', DEFAULT_CHOICES, { ARRIVAL: ['sms'] }, textable)).toEqual(['email'])
  })
  it('texts only a number that opted in, has not said STOP, with a provider; else emails', () => {
    for (const without of [{ phone: undefined }, { optedIn: false }, { stopped: true }, { provider: false }])
      expect(resolveChannels('ARRIVAL', both, { ARRIVAL: ['sms'] }, { ...textable, ...without })).toEqual(['email'])
    expect(resolveChannels('ARRIVAL', both, { ARRIVAL: ['email', 'sms'] }, { ...textable, stopped: true })).toEqual([
      'email',
    ])
  })
})

describe('reply keywords and numbers', () => {
  it('reads the CTIA words in any case, with blanks and a final stop', () => {
    expect(['STOP', 'stop', ' Stop. ', 'unsubscribe', 'Cancel', 'END', 'quit', 'STOPALL'].map(keywordOf)).toEqual(
      Array(8).fill('STOP'),
    )
    expect(['START', 'unstop', 'Yes'].map(keywordOf)).toEqual(['START', 'START', 'START'])
    expect(['HELP', 'info'].map(keywordOf)).toEqual(['HELP', 'HELP'])
    expect(['please stop', 'STOP IT', 'thanks', ''].map(keywordOf)).toEqual([
      undefined,
      undefined,
      undefined,
      undefined,
    ])
  })
  it('normalizes numbers to E.164, a national one in the default country, refusing what is no number', () => {
    expect(normalizePhone('+1 (555) 010-0001', 'US')).toBe('+15550100001')
    expect(normalizePhone('(555) 123-4567', 'US')).toBe('+15551234567')
    expect(normalizePhone('555.123.4567', 'US')).toBe('+15551234567')
    expect(normalizePhone('020 7946 0018', 'GB')).toBe('+442079460018')
    expect(normalizePhone('+44 20 7946 0018', 'US')).toBe('+442079460018')
    expect(normalizePhone('call me', 'US')).toBeUndefined()
    expect(normalizePhone('12', 'US')).toBeUndefined()
    expect(normalizePhone(null, 'US')).toBeUndefined()
  })
})

describe('quietUntil', () => {
  const at = (iso: string) => new Date(iso)
  it('holds a text inside a window spanning midnight until its end, local to the zone', () => {
    // 23:30 in New York (EST, UTC-5) is 04:30 UTC.
    expect(quietUntil(at('2026-11-27T04:30:00Z'), 'America/New_York', '21:00', '08:00')).toEqual(
      at('2026-11-27T13:00:00Z'),
    )
    // 07:59 local: one minute to go.
    expect(quietUntil(at('2026-11-27T12:59:00Z'), 'America/New_York', '21:00', '08:00')).toEqual(
      at('2026-11-27T13:00:00Z'),
    )
  })
  it('lets a text go outside the window, at its end, and when start equals end', () => {
    expect(quietUntil(at('2026-11-27T13:00:00Z'), 'America/New_York', '21:00', '08:00')).toBeUndefined()
    expect(quietUntil(at('2026-11-27T18:00:00Z'), 'America/New_York', '21:00', '08:00')).toBeUndefined()
    expect(quietUntil(at('2026-11-27T18:00:00Z'), 'UTC', '09:00', '09:00')).toBeUndefined()
  })
  it('handles a window within a day, and an unknown zone as UTC', () => {
    expect(quietUntil(at('2026-11-27T12:15:00Z'), 'UTC', '12:00', '13:30')).toEqual(at('2026-11-27T13:30:00Z'))
    expect(quietUntil(at('2026-11-27T12:15:00Z'), 'Not/AZone', '12:00', '13:30')).toEqual(at('2026-11-27T13:30:00Z'))
  })
})

describe('composeText', () => {
  const parcel = (over: Partial<PackageView> = {}): PackageView => ({
    packageId: 'p',
    trackingNumber: '1Z999',
    currentStatus: 'RECEIVED',
    pickupCode: 'K7Q2ZP',
    ...over,
  })
  it('puts the pickup code first and fits two segments', () => {
    const body = composeText({
      kind: 'ARRIVAL',
      packages: [parcel(), parcel()],
      recipientName: 'Ada',
      where: 'HQ, Building A',
    })
    expect(body).toBe('Pickup code K7Q2ZP. 2 parcels arrived for Ada at HQ, Building A. Reply STOP to opt out.')
    expect(segmentsOf(body)).toBe(1)
  })
  it('says no code when parcels have different ones, and none on a receipt', () => {
    expect(
      composeText({ kind: 'ARRIVAL', packages: [parcel(), parcel({ pickupCode: 'OTHER1' })], recipientName: 'Ada' }),
    ).toMatch(/^2 parcels/)
    expect(composeText({ kind: 'PICKED_UP', packages: [parcel()], recipientName: 'Ada', collector: 'Bob' })).toBe(
      '1 parcel for Ada collected by Bob. Reply STOP to opt out.',
    )
  })
  it('drops the name, the opt-out line, then cuts the place to stay within two segments, GSM-7 or UCS-2', () => {
    const long = 'Building '.repeat(40)
    const gsm = composeText({ kind: 'FINAL_NOTICE', packages: [parcel()], recipientName: 'Ada', where: long })
    expect(segmentsOf(gsm)).toBeLessThanOrEqual(MAX_SEGMENTS)
    expect(gsm.startsWith('Pickup code K7Q2ZP. ')).toBe(true)
    const ucs = composeText({
      kind: 'REMINDER',
      packages: [parcel()],
      recipientName: '王小明',
      where: '北京大楼'.repeat(30),
    })
    expect(segmentsOf(ucs)).toBeLessThanOrEqual(MAX_SEGMENTS)
    expect(ucs.startsWith('Pickup code K7Q2ZP. ')).toBe(true)
    // A UCS-2 name that would push the text past two segments is left out before the opt-out line.
    const named = composeText({ kind: 'ARRIVAL', packages: [parcel()], recipientName: '王'.repeat(80), where: 'HQ' })
    expect(named).toBe('Pickup code K7Q2ZP. 1 parcel arrived at HQ. Reply STOP to opt out.')
  })
  it('counts segments by the GSM 03.38 and UCS-2 rules', () => {
    expect(segmentsOf('a'.repeat(160))).toBe(1)
    expect(segmentsOf('a'.repeat(161))).toBe(2)
    expect(segmentsOf('a'.repeat(306))).toBe(2)
    expect(segmentsOf('a'.repeat(307))).toBe(3)
    expect(segmentsOf('€'.repeat(80))).toBe(1) // an escape: two septets each
    expect(segmentsOf('€'.repeat(81))).toBe(2)
    expect(segmentsOf('é'.repeat(160))).toBe(1) // in the GSM-7 alphabet
    expect(segmentsOf('ä'.repeat(70) + 'ł')).toBe(2) // ł is not: UCS-2, 70 per single segment
    expect(segmentsOf('ł'.repeat(70))).toBe(1)
  })
})

describe('providerSignature', () => {
  it('matches the example of Twilio’s request validation documentation', () => {
    expect(
      providerSignature('12345', 'https://mycompany.com/myapp.php?foo=1&bar=2', {
        CallSid: 'CA1234567890ABCDE',
        Caller: '+14158675309',
        Digits: '1234',
        From: '+14158675309',
        To: '+18005551212',
      }),
    ).toBe('RSOYDt4T1cUTdK1PDd93/VVr8B8=')
  })
})
