import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/use-test-app.js'
import { api } from '../support/factories.js'

// PB's decode shows the package's contacts in full (PB-REFERENCE §4.1, §8.2, §8.3): contactId, name,
// company, personalId, phone, and location / mailStopLocation as full site references.

const GS = '\x1d'
const RS = '\x1e'
const EOT = '\x04'
const UPS = '1Z999AA10123456784'
const FEDEX_2D = `[)>${RS}01${GS}02${GS}38017${GS}840${GS}01${GS}986578788855${GS}FDEB${GS}123456789${GS}200${GS}${GS}1/2${GS}7.00LB${GS}N${GS}9185 GRANT AVE${GS}COLLIERVILLE${GS}TN${RS}06${GS}10ZED008${GS}11ZJOHN DOE${GS}12Z9015551234${RS}${EOT}`

const t = useTestApp()

/** A subscription with a site tree, a sender, a receiver with a desk and a mail stop, and a colleague. */
async function mailroom(label: string) {
  const a = api(t, await t.newClient())
  const locationId = await a.location(`${label} HQ`)
  const siteId = await a.site({ type: 'site', name: `${label} Site`, locationId, primary: true })
  const floorId = await a.site({ type: 'floor', name: 'Floor 3', parent: siteId })
  const mailStopId = await a.site({ type: 'mailstop', name: 'MS 3-14', parent: floorId })
  const senderId = await a.contact('SENDER', `${label} Supplies`, {
    company: `${label} Inc`,
    phone: '5550001',
    email: 'orders@example.com',
  })
  const receiverId = await a.contact('RECEIVER', 'John Doe', {
    company: `${label} Corp`,
    phone: '5551234',
    personalId: `${label}-jd1`,
    email: 'jd@example.com',
    location: { inboundSiteId: floorId },
    mailStopLocation: { inboundSiteId: mailStopId },
  })
  const colleagueId = await a.contact('ALL', `${label} Colleague`)
  const decode = (raw: string) =>
    a.call('GET', `/api/v1/packages/tracking/decode?trackingNumber=${encodeURIComponent(raw)}`)
  return { a, siteId, floorId, mailStopId, senderId, receiverId, colleagueId, decode }
}

describe('decode shows the contacts of a held package in PB shape', () => {
  it('sender, receiver and givenTo with full site references; no email', async () => {
    const m = await mailroom('Acme')
    const { packageId } = await m.a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: UPS, sender: { contactId: m.senderId }, receiver: { contactId: m.receiverId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.siteId } },
    })
    await m.a.ok(
      'PUT',
      `/api/v1/packages/${packageId}`,
      { package: { givenTo: { contactId: m.colleagueId } }, lastActivity: { status: 'DELIVERED' } },
      200,
    )

    const res = await m.decode(UPS)
    expect(res.statusCode, res.body).toBe(200)
    const pkg = res.json().package
    expect(pkg).toMatchObject({ packageId, currentStatus: 'DELIVERED', trackingNumber: UPS })
    expect(pkg.sender).toEqual({ contactId: m.senderId, name: 'Acme Supplies', company: 'Acme Inc', phone: '5550001' })
    expect(pkg.receiver).toEqual({
      contactId: m.receiverId,
      name: 'John Doe',
      company: 'Acme Corp',
      phone: '5551234',
      personalId: 'Acme-jd1',
      location: {
        inboundSiteId: m.floorId,
        name: 'Floor 3',
        type: 'floor',
        parent: m.siteId,
        locationHierarchy: 'Acme Site| Floor 3',
        ancestorlist: [m.siteId],
        topTier: { inboundSiteId: m.siteId, name: 'Acme Site' },
      },
      mailStopLocation: {
        inboundSiteId: m.mailStopId,
        name: 'MS 3-14',
        type: 'mailstop',
        parent: m.floorId,
        locationHierarchy: 'Acme Site| Floor 3| MS 3-14',
        ancestorlist: [m.siteId, m.floorId],
        topTier: { inboundSiteId: m.siteId, name: 'Acme Site' },
      },
    })
    expect(pkg.givenTo).toEqual({ contactId: m.colleagueId, name: 'Acme Colleague' })
  })

  it('leaves givenTo out until the package is handed over, and shows nothing of a package it does not hold', async () => {
    const m = await mailroom('Bolt')
    await m.a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: UPS, receiver: { contactId: m.receiverId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.siteId } },
    })
    const pkg = (await m.decode(UPS)).json().package
    expect(pkg.receiver.contactId).toBe(m.receiverId)
    expect(pkg.sender).toBeUndefined()
    expect(pkg.givenTo).toBeUndefined()

    const stranger = await mailroom('Cold')
    const theirs = (await stranger.decode(UPS)).json().package
    expect(theirs.packageId).toBeUndefined()
    expect(theirs.sender).toBeUndefined()
    expect(theirs.receiver).toBeUndefined()
  })

  it("never shows another subscription's package or contacts, also when their lookups are gathered into one turn", async () => {
    const [x, y, none] = [await mailroom('Xeno'), await mailroom('Yarn'), await mailroom('Zinc')]
    const held = new Map<string, string>()
    for (const m of [x, y]) {
      const { packageId } = await m.a.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: UPS, sender: { contactId: m.senderId }, receiver: { contactId: m.receiverId } },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.siteId } },
      })
      held.set(m.receiverId, packageId)
    }
    // Many concurrent decodes of one number from three subscriptions, interleaved.
    const order = Array.from({ length: 30 }, (_, i) => [x, y, none][i % 3]!)
    const answers = await Promise.all(order.map((m) => m.decode(UPS)))
    answers.forEach((res, i) => {
      const m = order[i]!
      expect(res.statusCode, res.body).toBe(200)
      const pkg = res.json().package
      if (m === none) {
        expect(pkg.packageId).toBeUndefined()
        expect(pkg.receiver).toBeUndefined()
        return
      }
      expect(pkg.packageId).toBe(held.get(m.receiverId))
      expect(pkg.sender.contactId).toBe(m.senderId)
      expect(pkg.receiver).toMatchObject({
        contactId: m.receiverId,
        company: m === x ? 'Xeno Corp' : 'Yarn Corp',
        location: { inboundSiteId: m.floorId },
      })
    })
  })
})

describe("decode shows the contact a 2D label's ship-to names, in PB shape", () => {
  it("the one matching recipient with its sites, the label's address kept", async () => {
    const m = await mailroom('Dune')
    const res = await m.decode(FEDEX_2D)
    expect(res.statusCode, res.body).toBe(200)
    const receiver = res.json().package.receiver
    expect(receiver).toMatchObject({
      contactId: m.receiverId,
      name: 'John Doe',
      company: 'Dune Corp',
      phone: '5551234',
      personalId: 'Dune-jd1',
      location: {
        inboundSiteId: m.floorId,
        name: 'Floor 3',
        type: 'floor',
        locationHierarchy: 'Dune Site| Floor 3',
        topTier: { inboundSiteId: m.siteId },
      },
      mailStopLocation: { inboundSiteId: m.mailStopId, ancestorlist: [m.siteId, m.floorId] },
      postalCode: '38017',
      address: { line1: '9185 GRANT AVE', city: 'COLLIERVILLE', state: 'TN' },
    })
    expect(receiver.email).toBeUndefined()
    expect(res.json().package.packageId).toBeUndefined()
  })

  it("the package on file names its receiver over the label's ship-to", async () => {
    const m = await mailroom('Echo')
    await m.a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: '986578788855', receiver: { contactId: m.colleagueId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: m.siteId } },
    })
    const pkg = (await m.decode(FEDEX_2D)).json().package
    expect(pkg.packageId).toBeDefined()
    expect(pkg.receiver).toEqual({ contactId: m.colleagueId, name: 'Echo Colleague' })
  })
})
