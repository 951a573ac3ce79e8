import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { DESKTOP, expectAccessible, signIn, useConsole } from './support.js'

// Forwards and returns at the desk (issue 30.2), in Chromium against the real app: a clerk
// forwards a parcel to another site from its page, and works the return proposals by keyboard.

const h = useConsole()
let client: TestClient
let annex: string
let toForward: string
let toReturn: string
let toKeep: string
const clerk = { email: 'clerk@desk-holds.example', password: 'clerk password 123' }
const DAY = 86_400_000

beforeAll(async () => {
  client = await h.t.newClient('desk-holds')
  const a = api(h.t, client)
  const locationId = await a.location('Tower')
  const hq = await a.site({ type: 'site', name: 'HQ', locationId, primary: true })
  annex = await a.site({ type: 'building', name: 'Annex', parent: hq })
  const grace = await a.contact('RECEIVER', 'Grace Hopper')
  const receive = async (n: string) =>
    (
      await a.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: n, receiver: { contactId: grace } },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: hq } },
      })
    ).packageId as string
  toReturn = await receive('1ZHOLDRETURN01')
  // A minute later (the test clock stands still otherwise): "oldest first" has an order to show.
  h.t.clock.advance(60_000)
  toKeep = await receive('1ZHOLDKEEP0002')
  await a.ok('PUT', `/api/v1/inboundsites/${hq}/returnDeadline`, { returnAfterDays: 3 })
  // Four days on, the two parcels are past the deadline; the proposal job finds them.
  h.t.clock.advance(4 * DAY)
  client = await h.t.refresh(client)
  expect(await h.t.ctx.holds.proposals.run()).toBe(2)
  toForward = await (async () => {
    const b = api(h.t, client)
    return (
      await b.ok('POST', '/api/v1/packages', {
        package: { trackingNumber: '1ZHOLDFORWARD3', receiver: { contactId: grace } },
        lastActivity: { status: 'RECEIVED', location: { inboundSiteId: hq } },
      })
    ).packageId as string
  })()
  await createUser(h.t, client, { ...clerk, role: 'clerk', name: 'Desk Clerk' })
})

const record = async (packageId: string) => api(h.t, client).ok('GET', `/api/v1/packages/${packageId}?type=DETAILED`)

describe('forwards and returns at the desk', () => {
  it('forwards a parcel to another site from its page; its history says so', async () => {
    const { page } = await h.open(DESKTOP)
    await signIn(page, clerk.email, clerk.password)
    await page.goto(`/console/packages/${toForward}`)
    await page.getByRole('heading', { name: 'Forward', exact: true }).waitFor()
    await page.getByLabel('Site', { exact: true }).selectOption({ label: 'HQ › Annex' })
    await page.getByLabel('Note (optional)').fill('by cart')
    await page.getByLabel('Note (optional)').press('Enter')
    await page.getByText('Forwarded to the site.').waitFor()
    await page
      .getByText(/Forwarded to HQ › Annex — by cart/)
      .first()
      .waitFor()
    expect((await record(toForward)).currentLocation.inboundSiteId).toBe(annex)
    await expectAccessible(page, 'package with forward')
  })

  it('confirms a proposed return with R and keeps another with D, from the keyboard', async () => {
    const { page } = await h.open(DESKTOP)
    await signIn(page, clerk.email, clerk.password)
    await page.getByRole('link', { name: 'Returns' }).click()
    await page.getByRole('heading', { name: 'Returns' }).waitFor()
    const proposals = page.getByTestId('return-proposal')
    await expect.poll(() => proposals.count()).toBe(2)
    await expectAccessible(page, 'returns')
    // Oldest first: the parcel to return is first; R returns it and the next one takes the focus.
    await proposals.first().focus()
    await expect.poll(() => proposals.first().getAttribute('aria-label')).toMatch(/^1ZHOLDRETURN01/)
    await page.keyboard.press('r')
    await page.getByTestId('announce').getByText('1ZHOLDRETURN01: returned to sender.').waitFor()
    await expect.poll(() => proposals.count()).toBe(1)
    await expect
      .poll(() => page.evaluate<string>("document.activeElement?.getAttribute('aria-label') ?? ''"))
      .toMatch(/^1ZHOLDKEEP0002/)
    await page.keyboard.press('d')
    await page.getByTestId('returns-empty').waitFor()
    expect((await record(toReturn)).currentStatus).toBe('RETURNED_TO_SENDER')
    expect((await record(toKeep)).currentStatus).toBe('RECEIVED')
    expect(h.pageErrors).toEqual([])
  })
})
