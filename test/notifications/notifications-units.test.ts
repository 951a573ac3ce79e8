import { describe, expect, it } from 'vitest'
import { composeEmail, type PackageView } from '../../src/notifications/model/compose.js'
import { NOTIFICATION_KINDS, webhookEventOf } from '../../src/notifications/model/kinds.js'
import { planNotifications } from '../../src/notifications/model/plan.js'
import { localTime, placeOf } from '../../src/notifications/model/place.js'
import { checkSettings, DEFAULT_SETTINGS } from '../../src/notifications/model/settings.js'
import {
  DEFAULT_TEMPLATES,
  renderEmail,
  templateProblem,
  type TemplateView,
} from '../../src/notifications/model/templates.js'
import { readUnsubscribeToken, unsubscribeToken } from '../../src/notifications/model/unsubscribe.js'
import { eventNames } from '../../src/events/catalogue.js'
import { ValidationErrors } from '../../src/platform/kit/errors.js'

const view = (over: Partial<TemplateView> = {}): TemplateView => ({
  recipientName: 'Ada <script>',
  count: 1,
  one: true,
  packages: [
    {
      trackingNumber: '1Z<b>',
      carrier: 'UPS',
      sender: 'Acme & Co',
      location: 'HQ',
      packageLocation: '',
      pickupCode: '',
      flags: '',
    },
  ],
  perishable: false,
  siteName: 'HQ',
  openingHours: '',
  pickupCode: 'K7M2QX',
  qrCodeSrc: 'cid:x',
  step: 0,
  hoursWaiting: '',
  collectedBy: '',
  onBehalf: false,
  collectedAt: '',
  unsubscribeUrl: 'https://m.example/u?t=a&b',
  aParcel: 'A parcel',
  parcels: 'parcels',
  ...over,
})

describe('templates', () => {
  it('escapes every variable in the HTML part, prints text as it is, keeps the subject on one line', () => {
    const out = renderEmail('ARRIVAL', undefined, view())
    expect(out.html).toContain('Ada &lt;script&gt;')
    expect(out.html).toContain('1Z&lt;b&gt;')
    expect(out.html).not.toContain('<script>')
    expect(out.text).toContain('Ada <script>')
    expect(out.text).toContain('Acme & Co')
    expect(out.text).toContain('Your pickup code: K7M2QX')
    expect(
      renderEmail('ARRIVAL', { subject: 'Hi {{recipientName}}' }, view({ recipientName: 'a\r\nBcc: x' })).subject,
    ).toBe('Hi a Bcc: x')
  })

  it('uses an override part and the shipped template for the others', () => {
    const out = renderEmail('REMINDER', { subject: 'Still here: {{count}}' }, view({ count: 3, one: false }))
    expect(out.subject).toBe('Still here: 3')
    expect(out.text).toContain('These parcels are still waiting')
  })

  it('refuses unescaped variables and broken templates; the shipped templates pass', () => {
    expect(templateProblem('{{{x}}}', 'html')).toMatch(/unescaped/)
    expect(templateProblem('{{#a}}{{& x}}{{/a}}', 'html')).toMatch(/unescaped/)
    expect(templateProblem('{{#a}}', 'html')).toMatch(/not a valid Mustache template/)
    expect(templateProblem('Hello {{name}} {{#packages}}{{trackingNumber}}{{/packages}}', 'html')).toBeUndefined()
    for (const kind of NOTIFICATION_KINDS)
      for (const part of ['subject', 'text', 'html'] as const)
        expect(templateProblem(DEFAULT_TEMPLATES[kind][part], part)).toBeUndefined()
  })
})

describe('settings rules', () => {
  const fields = (s: Partial<typeof DEFAULT_SETTINGS>) => {
    try {
      checkSettings({ ...DEFAULT_SETTINGS, ...s })
      return []
    } catch (e) {
      return (e as ValidationErrors).items.map((i) => i.field)
    }
  }
  it('wants ascending steps before the final notice', () => {
    expect(fields({ reminderAfterHours: [0.25, 0.5, 24] })).toEqual([])
    expect(fields({ reminderAfterHours: [1, 1] })).toEqual(['reminderAfterHours[1]'])
    expect(fields({ reminderAfterHours: [1], finalNoticeAfterHours: 1 })).toEqual(['finalNoticeAfterHours'])
    expect(fields({ finalNoticeAfterHours: 0.1 })).toEqual([])
  })
})

describe('planning from package events', () => {
  const ev = (event_name: string, package_id: string, receiver?: string, sub_id = 's1') => ({
    sub_id,
    package_id,
    variant: 'tracking',
    event_name,
    data: JSON.stringify(receiver ? { receiver: { contactId: receiver } } : {}),
  })
  it('arrivals on Acceptance, one pickup per recipient for everything delivered in one write', () => {
    const p = planNotifications([
      ev('Acceptance', 'p1', 'c1'),
      ev('Received', 'p1', 'c1'),
      ev('Acceptance', 'p2', 'c1'),
      ev('Acceptance', 'p3'),
      ev('Delivered', 'p4', 'c2'),
      ev('Delivered', 'p5', 'c2'),
      ev('PickedUp', 'p6', 'c3', 's2'),
      { ...ev('PickedUp', 'p7', 'c3'), variant: 'locker' },
    ])
    expect([...p.arrivals.get('s1')!]).toEqual([['c1', ['p1', 'p2']]])
    expect([...p.pickups.get('s1')!]).toEqual([['c2', ['p4', 'p5']]])
    expect([...p.pickups.get('s2')!]).toEqual([['c3', ['p6']]])
  })
})

describe('unsubscribe tokens', () => {
  const key = Buffer.alloc(32, 7)
  it('round-trip, and refuse any change or another key', () => {
    const t = unsubscribeToken(key, 'sub_1', 'con_1')
    expect(readUnsubscribeToken(key, t)).toEqual({ subId: 'sub_1', contactId: 'con_1' })
    expect(readUnsubscribeToken(Buffer.alloc(32, 8), t)).toBeUndefined()
    const [body, sig] = t.split('.')
    const other = unsubscribeToken(key, 'sub_1', 'con_2').split('.')[0]
    expect(readUnsubscribeToken(key, `${other}.${sig}`)).toBeUndefined()
    expect(readUnsubscribeToken(key, `${body}.${sig!.slice(0, -1)}${sig!.endsWith('A') ? 'B' : 'A'}`)).toBeUndefined()
    expect(readUnsubscribeToken(key, `${body}`)).toBeUndefined()
    expect(readUnsubscribeToken(key, `${t}.x`)).toBeUndefined()
  })
})

describe('worker rules', () => {
  it('publishes every kind as a tracking webhook event of the catalogue', () => {
    for (const kind of NOTIFICATION_KINDS) expect(eventNames('tracking')).toContain(webhookEventOf(kind))
  })
})

describe('composing', () => {
  const pkg = (over: Partial<PackageView> = {}): PackageView => ({
    packageId: 'p1',
    trackingNumber: '1ZA',
    currentStatus: 'RECEIVED',
    ...over,
  })
  const input = (packages: PackageView[]) => ({
    notificationId: 'ntf_1',
    kind: 'ARRIVAL' as const,
    step: 0,
    to: 'a@example.com',
    recipientName: 'Ada',
    packages,
    settings: DEFAULT_SETTINGS,
    unsubscribeUrl: 'https://m.example/u?t=x',
    messageIdDomain: 'm.example',
    now: new Date('2026-01-01T00:00:00Z'),
  })
  it('shows one shared pickup code with its QR code inline, and the RFC 8058 headers', async () => {
    const m = await composeEmail(input([pkg({ pickupCode: 'K7M2QX' }), pkg({ packageId: 'p2', pickupCode: 'K7M2QX' })]))
    expect(m.messageId).toBe('<ntf_1@m.example>')
    expect(m.headers).toMatchObject({
      'List-Unsubscribe': '<https://m.example/u?t=x>',
      'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click',
    })
    expect(m.text).toContain('K7M2QX')
    expect(m.attachments).toHaveLength(1)
    expect(m.attachments[0]!.content.subarray(1, 4).toString()).toBe('PNG')
    expect(m.html).toContain(`cid:${m.attachments[0]!.cid}`)
  })
  it("the mailroom's own items say 'item' and name no carrier; carriers' parcels keep theirs", async () => {
    const internal = { carrierId: 'MAILROOM', name: 'Mailroom (internal)' }
    const one = await composeEmail(input([pkg({ trackingNumber: 'HELLO1', carrier: internal })]))
    expect(one.subject).toBe('An item is waiting for you')
    expect(one.text).toContain('An item has arrived for you:\n- HELLO1\n')
    expect(one.text).not.toContain('Mailroom (internal)')
    expect(one.html).not.toContain('Mailroom (internal)')
    expect(one.text).not.toMatch(/parcel/i)
    const two = await composeEmail(input([pkg({ carrier: internal }), pkg({ packageId: 'p2', carrier: internal })]))
    expect(two.subject).toBe('2 items are waiting for you')
    const ups = await composeEmail(input([pkg({ carrier: { carrierId: 'UPS', name: 'UPS' } })]))
    expect(ups.subject).toBe('A parcel is waiting for you')
    expect(ups.text).toContain('- 1ZA (UPS)')
  })
  it('no code, no QR code', async () => {
    const m = await composeEmail(input([pkg()]))
    expect(m.attachments).toEqual([])
    expect(m.text).not.toContain('pickup code')
  })
})

describe('places and times as emails write them', () => {
  const at = (type: string, name: string) => ({ type, name })
  it('names the site and building, then the shelf with its kind, never a code', () => {
    expect(placeOf([at('site', 'Mailroom 1'), at('building', 'Building 1'), at('shelf', 'A-3')], 'UTC')).toEqual({
      where: 'Mailroom 1, Building 1',
      place: 'Mailroom 1, Building 1 — shelf A-3',
      timeZone: 'UTC',
    })
    expect(placeOf([at('site', 'HQ'), at('shelf', 'Shelf 12')], 'UTC').place).toBe('HQ — Shelf 12')
    expect(placeOf([at('site', 'HQ'), at('mailstop', 'M-4')], 'UTC').place).toBe('HQ — mail stop M-4')
    expect(placeOf([at('site', 'HQ'), at('building', 'East')], 'UTC').place).toBe('HQ, East')
  })
  it('writes a moment in the place’s time zone, UTC when the zone is unknown', () => {
    const noon = new Date('2026-07-01T12:00:00Z')
    expect(localTime(noon, 'America/New_York', 'en')).toBe('Wed, Jul 1, 2026, 8:00 AM EDT')
    expect(localTime(noon, 'Nowhere/Else', 'en')).toBe('Wed, Jul 1, 2026, 12:00 PM UTC')
  })
})
