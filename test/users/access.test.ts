import type { RouteOptions } from 'fastify'
import { describe, expect, it } from 'vitest'
import { ADMIN_ONLY, CLERK_WRITES, routeKey } from '../../src/access/api/console-access.js'
import { createUser, signIn, type SignedIn } from '../support/console-session.js'
import { api, trackingNumber } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// onRoute sees each route with its path inside its interface's prefix (routePath), as registerAccess does.
const declared: Array<RouteOptions & { routePath: string }> = []
const t = useTestApp({}, { onRoute: (route) => declared.push(route as RouteOptions & { routePath: string }) })
const admin = useClient(t)

let n = 0
const email = (what: string) => `${what}-${++n}@access.example.com`
let adminApi: ReturnType<typeof api> | undefined
const adminCalls = () => (adminApi ??= api(t, admin))

async function user(role: 'admin' | 'clerk', siteId?: string): Promise<SignedIn> {
  const e = email(role)
  await createUser(t, admin, { email: e, role, ...(siteId ? { siteId } : {}) })
  return signIn(t, e)
}

/** The routes registerAccess classified (the receiving and webhook interfaces), by their declared path. */
const classified = () =>
  declared
    .filter((r) => r.config?.access !== undefined)
    .flatMap((r) => [r.method].flat().map((m) => ({ key: routeKey(m, r.routePath), url: r.url, method: m })))

describe('which routes a clerk may use', () => {
  it('classifies every write of the app: each is admin-only or the desk’s, and each listed route exists', () => {
    const routes = classified()
    expect(routes.length).toBeGreaterThan(40)
    const writes = routes.filter((r) => !['GET', 'HEAD'].includes(r.method)).map((r) => r.key)
    expect(writes.filter((k) => !ADMIN_ONLY.has(k) && !CLERK_WRITES.has(k))).toEqual([])
    const keys = new Set(routes.map((r) => r.key))
    expect([...ADMIN_ONLY, ...CLERK_WRITES].filter((k) => !keys.has(k))).toEqual([])
    expect([...ADMIN_ONLY].filter((k) => CLERK_WRITES.has(k))).toEqual([])
  })

  it('refuses a clerk every admin-only route with 403, the CSRF token notwithstanding', async () => {
    const clerk = await user('clerk')
    const admins = classified().filter((r) => r.method !== 'HEAD' && ADMIN_ONLY.has(r.key))
    expect(admins.length).toBeGreaterThanOrEqual(ADMIN_ONLY.size)
    const allowed: string[] = []
    for (const r of admins) {
      const res = await t.inject({
        method: r.method as 'GET',
        url: r.url.replace(/:\w+/g, 'x'),
        ...clerk.write,
        ...(['POST', 'PUT', 'PATCH'].includes(r.method) ? { payload: {} } : {}),
      })
      if (res.statusCode !== 403 || !String(res.json().message).includes('admin')) allowed.push(`${r.method} ${r.url}`)
    }
    expect(allowed).toEqual([])
  })

  it('lets an admin user do the set-up: a site, a clerk, a webhook configuration list', async () => {
    const a = await user('admin')
    const locationId = await adminCalls().location()
    const site = await t.inject({
      method: 'POST',
      url: '/api/v1/inboundsites',
      ...a.write,
      payload: { type: 'site', name: 'Admin HQ', locationId },
    })
    expect(site.statusCode, site.body).toBe(200)
    const created = await t.inject({
      method: 'POST',
      url: '/api/v1/users',
      ...a.write,
      payload: { email: email('made-by-admin'), role: 'clerk' },
    })
    expect(created.statusCode, created.body).toBe(201)
    const configs = await t.inject({
      method: 'GET',
      url: '/webhooks/tracking/api/v1/webhookConfig',
      cookies: a.cookies,
    })
    expect(configs.statusCode).toBe(200)
  })

  it('lets a clerk do the desk’s work: add a contact, receive and archive a package, read the sites', async () => {
    const clerk = await user('clerk')
    const contact = await t.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      ...clerk.write,
      payload: { contactType: 'RECEIVER', name: 'New Resident' },
    })
    expect(contact.statusCode, contact.body).toBe(201)
    const removed = await t.inject({
      method: 'DELETE',
      url: `/api/v1/contacts/${contact.json().contactId}`,
      ...clerk.write,
    })
    expect(removed.statusCode).toBe(403)
    const sites = await t.inject({ method: 'GET', url: '/api/v1/inboundsites', cookies: clerk.cookies })
    expect(sites.statusCode).toBe(200)
  })
})

describe('a clerk limited to a site', () => {
  it('writes packages at that site and below only; reads stay whole', async () => {
    const m = await adminCalls().mailroom()
    const locationId = await adminCalls().location()
    const elsewhere = await adminCalls().site({ type: 'site', name: 'Annex', locationId })
    const clerk = await user('clerk', m.buildingId)
    expect(clerk.user.siteId).toBe(m.buildingId)
    const add = (siteId?: string) =>
      t.inject({
        method: 'POST',
        url: '/api/v1/packages',
        ...clerk.write,
        payload: {
          package: { trackingNumber: trackingNumber() },
          ...(siteId ? { lastActivity: { status: 'RECEIVED', location: { inboundSiteId: siteId } } } : {}),
        },
      })
    // The building and the shelf below it: yes.
    expect((await add(m.buildingId)).statusCode).toBe(201)
    const onShelf = await add(m.shelfId)
    expect(onShelf.statusCode).toBe(201)
    // The parent site, another site, or the default primary site (above the building): no, naming the field.
    for (const siteId of [m.siteId, elsewhere, undefined]) {
      const res = await add(siteId)
      expect(res.statusCode, `${siteId}`).toBe(400)
      expect(res.json().errors[0].additionalParameters).toBe(
        siteId ? 'lastActivity.location.inboundSiteId' : 'package.inboundSiteId',
      )
    }
    // Moving its own package out of the subtree: no.
    const { packageId } = onShelf.json()
    const move = await t.inject({
      method: 'PUT',
      url: `/api/v1/packages/${packageId}`,
      ...clerk.write,
      payload: { package: {}, lastActivity: { status: 'RECEIVED', location: { inboundSiteId: elsewhere } } },
    })
    expect(move.statusCode).toBe(400)
    // A package elsewhere: readable, not writable.
    const other = await adminCalls().ok('POST', '/api/v1/packages', {
      package: { trackingNumber: trackingNumber() },
      lastActivity: { status: 'RECEIVED', location: { inboundSiteId: elsewhere } },
    })
    const read = await t.inject({
      method: 'GET',
      url: `/api/v1/packages/${other.packageId}?type=DETAILED`,
      cookies: clerk.cookies,
    })
    expect(read.statusCode).toBe(200)
    const touch = await t.inject({
      method: 'PUT',
      url: `/api/v1/packages/${other.packageId}`,
      ...clerk.write,
      payload: { package: { comment: 'mine' } },
    })
    expect(touch.statusCode).toBe(400)
    expect(touch.json().errors[0].additionalParameters).toBe('packageId')
    const archive = await t.inject({
      method: 'PATCH',
      url: `/api/v1/packages/${other.packageId}/archive`,
      ...clerk.write,
      payload: {},
    })
    expect(archive.statusCode).toBe(400)
    // Nor handed over in a pickup (its code read like any package's): the selection is named, the site said.
    const pickupCode = read.json().pickupCode as string
    expect(pickupCode).toMatch(/^[0-9A-Z]{6}$/)
    const handedOver = await t.inject({
      method: 'POST',
      url: '/api/v1/pickups',
      ...clerk.write,
      payload: { pickupCode, givenTo: { contactId: m.receiverId } },
    })
    expect(handedOver.statusCode, handedOver.body).toBe(400)
    expect(handedOver.json().errors[0]).toMatchObject({
      additionalParameters: 'pickupCode',
      errorDescription: expect.stringContaining('outside the sites this user works at'),
    })
    // An admin with the same siteId is not fenced.
    const boss = await user('admin', m.buildingId)
    const anywhere = await t.inject({
      method: 'PUT',
      url: `/api/v1/packages/${other.packageId}`,
      ...boss.write,
      payload: { package: { comment: 'fine' } },
    })
    expect(anywhere.statusCode).toBe(200)
  })
})
