import { beforeAll, describe, expect, it } from 'vitest'
import { api, PNG_1PX, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// Issue 25 item 4: the signature rule of a parcel's site (its own, else its nearest ancestor's;
// required at the top) is the server's rule for the desk's hand-over, not only the console's.

const t = useTestApp()
const me = useClient(t)
let a: ReturnType<typeof api>
let m: Awaited<ReturnType<ReturnType<typeof api>['mailroom']>>
beforeAll(async () => {
  a = api(t, me)
  m = await a.mailroom()
})

type Errors = { errors: Array<{ additionalParameters: string; errorDescription: string }> }
const errorsOf = (res: { json(): unknown }) => (res.json() as Errors).errors
const setRule = (siteId: string, body: Record<string, unknown>) =>
  a.ok('PUT', `/api/v1/inboundsites/${siteId}`, body, 200)
const upload = async (): Promise<string> =>
  (await a.ok('POST', '/api/v1/packages/images', { base64: PNG_1PX }, 200)).tempURL
/** A receiver with one parcel waiting on `siteId`: its contact and the parcel. */
async function waitingAt(siteId: string, name: string) {
  const contactId = await a.contact('RECEIVER', name)
  const packageId = (
    await a.ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber(), receiver: { contactId } },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: siteId } },
    })
  ).packageId as string
  return { contactId, packageId }
}
const statusOf = async (id: string) => (await a.ok('GET', `/api/v1/packages/${id}?type=DETAILED`)).currentStatus

describe('the signature rule of POST /api/v1/pickups', () => {
  it('refuses a hand-over at a site with no rule set anywhere (required at the top), naming images; nothing is handed over', async () => {
    const p = await waitingAt(m.shelfId, 'Una Signed')
    const res = await a.call('POST', '/api/v1/pickups', { contactId: p.contactId })
    expect(res.statusCode, res.body).toBe(400)
    const [err] = errorsOf(res)
    expect(err!.additionalParameters).toBe('images')
    expect(err!.errorDescription).toContain('A signature is required at Shelf 1')
    expect(err!.errorDescription).toContain('typedSignature')
    expect(await statusOf(p.packageId)).toBe('RECEIVED')
  })

  it('takes a drawn signature, or a typed full name recorded as typed in the pickup and the activity', async () => {
    const drawn = await waitingAt(m.shelfId, 'Dora Drawn')
    const signature = await upload()
    const res = await a.call('POST', '/api/v1/pickups', {
      contactId: drawn.contactId,
      images: [{ imageType: 'SIGNATURE', tempURL: signature }],
    })
    expect(res.statusCode, res.body).toBe(201)
    expect(res.json().typedSignature).toBeUndefined()

    const typed = await waitingAt(m.shelfId, 'Kay Board')
    const ok = await a.call('POST', '/api/v1/pickups', { contactId: typed.contactId, typedSignature: ' Kay Board ' })
    expect(ok.statusCode, ok.body).toBe(201)
    const pickup = ok.json()
    expect(pickup).toMatchObject({ typedSignature: 'Kay Board', images: [] })
    expect((await a.ok('GET', `/api/v1/pickups/${pickup.pickupId}`)).typedSignature).toBe('Kay Board')
    const { activities } = await a.ok('GET', `/api/v1/packages/${typed.packageId}?type=ACTIVITIES`)
    expect(activities.at(-1)).toMatchObject({ status: 'DELIVERED' })
    expect(activities.at(-1).comment).toBe(
      `Pickup ${pickup.pickupId}: collected by Kay Board. Signature typed by the collector: Kay Board.`,
    )
  })

  it('takes a photo instead only where the site allows photos; inherited from the building', async () => {
    const p = await waitingAt(m.shelfId, 'Phil Photo')
    const photo = await upload()
    const body = { contactId: p.contactId, images: [{ imageType: 'PHOTO', tempURL: photo }] }
    const refused = await a.call('POST', '/api/v1/pickups', body)
    expect(refused.statusCode, refused.body).toBe(400)
    expect(errorsOf(refused)[0]!.errorDescription).not.toContain('PHOTO')
    expect(await statusOf(p.packageId)).toBe('RECEIVED')

    await setRule(m.buildingId, { photoProofAllowed: true })
    try {
      const refusedAgain = await a.call('POST', '/api/v1/pickups', { contactId: p.contactId })
      expect(errorsOf(refusedAgain)[0]!.errorDescription).toContain('or attach a PHOTO')
      const res = await a.call('POST', '/api/v1/pickups', {
        ...body,
        images: [{ imageType: 'PHOTO', tempURL: await upload() }],
      })
      expect(res.statusCode, res.body).toBe(201)
      expect(res.json().images).toEqual([expect.objectContaining({ imageType: 'PHOTO' })])
    } finally {
      await setRule(m.buildingId, { photoProofAllowed: null })
    }
  })

  it('hands over without proof where the rule is optional or off, a child site overriding its parent', async () => {
    await setRule(m.siteId, { signatureRule: 'off' })
    await setRule(m.shelfId, { signatureRule: 'required' })
    try {
      const atBuilding = await waitingAt(m.buildingId, 'Otto Off')
      const res = await a.call('POST', '/api/v1/pickups', { contactId: atBuilding.contactId })
      expect(res.statusCode, res.body).toBe(201)
      expect(await statusOf(atBuilding.packageId)).toBe('DELIVERED')

      // One hand-over of a parcel on the (required) shelf and one in the (off) building: the strictest wins.
      const who = await a.contact('RECEIVER', 'Mia Mixed')
      const ids: string[] = []
      for (const siteId of [m.buildingId, m.shelfId])
        ids.push(
          (
            await a.ok('POST', '/api/v1/packages', {
              package: { trackingNumber: trackingNumber(), receiver: { contactId: who } },
              lastActivity: { status: 'RECEIVED', location: { inboundSiteId: siteId } },
            })
          ).packageId,
        )
      const mixed = await a.call('POST', '/api/v1/pickups', { contactId: who })
      expect(mixed.statusCode).toBe(400)
      expect(errorsOf(mixed)[0]!.additionalParameters).toBe('images')
      expect(await Promise.all(ids.map(statusOf))).toEqual(['RECEIVED', 'RECEIVED'])

      await setRule(m.shelfId, { signatureRule: 'optional' })
      const optional = await a.call('POST', '/api/v1/pickups', { contactId: who })
      expect(optional.statusCode, optional.body).toBe(201)
      expect(await Promise.all(ids.map(statusOf))).toEqual(['DELIVERED', 'DELIVERED'])
    } finally {
      await setRule(m.siteId, { signatureRule: null })
      await setRule(m.shelfId, { signatureRule: null })
    }
  })

  it('leaves the vendor contract’s status PUT as it is: DELIVERED without any proof at a required site', async () => {
    const p = await waitingAt(m.shelfId, 'Pat Put')
    await a.ok(
      'PUT',
      `/api/v1/packages/${p.packageId}`,
      { package: {}, lastActivity: { status: 'DELIVERED', location: {} } },
      200,
    )
    expect(await statusOf(p.packageId)).toBe('DELIVERED')
  })

  it('refuses an empty typed signature as a bad request naming typedSignature', async () => {
    const p = await waitingAt(m.shelfId, 'Eve Empty')
    const res = await a.call('POST', '/api/v1/pickups', { contactId: p.contactId, typedSignature: '   ' })
    expect(res.statusCode).toBe(400)
    expect(errorsOf(res).map((e) => e.additionalParameters)).toContain('typedSignature')
  })
})
