import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import type { TestClient } from '../support/build-test-app.js'
import { createUser } from '../support/console-session.js'
import { api } from '../support/factories.js'
import { encodeImage } from '../decode/image/support/encode.js'
import { labelPhoto } from '../decode/image/support/scene.js'
import { renderSymbol, SYMBOLS } from '../decode/image/support/symbols.js'
import { DESKTOP, expectAccessible, screenshot, signIn, useConsole } from './support.js'

// Label photos at the desk (issue 27): Receive reads the printed recipient from a photo; a doubtful
// one is saved without a recipient and waits in the scan-issues queue, settled with one key.

const FIXTURES = new URL('../decode/label/fixtures/', import.meta.url)
type Entry = {
  printedName: string
  person: { first: string; last: string; middle?: string }
  spec: { tracking: string }
}
const manifest = JSON.parse(readFileSync(new URL('manifest.json', FIXTURES), 'utf8')) as Record<string, Entry>
const [photoFile, entry] = Object.entries(manifest).find(([f]) => f.endsWith('-photo.jpg'))!
const { first, last, middle } = entry.person
const directoryName = [first, middle ? `${middle}.` : undefined, last].filter(Boolean).join(' ')

const h = useConsole({ IMAGE_DECODE_THREADS: '1', IMAGE_DECODE_TIMEOUT_MS: '120000' })
let client: TestClient
let namesakes: string[]
const admin = { email: 'admin@labels.example', password: 'admin password 123' }

beforeAll(async () => {
  client = await h.t.newClient('label-desk')
  const a = api(h.t, client)
  const locationId = await a.location('Tower')
  await a.site({ type: 'site', name: 'HQ', locationId, primary: true })
  // Two people of the very same name: the label cannot tell them apart, the clerk must.
  namesakes = [await a.contact('RECEIVER', directoryName), await a.contact('RECEIVER', directoryName)]
  await createUser(h.t, client, { ...admin, role: 'admin', name: 'Desk Admin' })
})

describe('label photos at the desk', () => {
  it('reads the photo, shows the name it read and the suggestions; saved without a recipient, the parcel waits in the queue until 2 is pressed', async () => {
    const { page } = await h.open(DESKTOP)
    await page.goto('/console')
    await signIn(page, admin.email, admin.password)
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor()
    await page.getByRole('link', { name: 'Receive' }).click()
    await page.getByRole('heading', { name: 'Receive' }).waitFor()
    await page.getByLabel('Location', { exact: true }).selectOption({ label: 'HQ' })

    await page.getByTestId('label-photo-input').setInputFiles(fileURLToPath(new URL(photoFile, FIXTURES)))
    await page.getByRole('heading', { name: 'Label as read' }).waitFor({ timeout: 60_000 })
    expect((await page.locator('.label-lines mark').textContent())?.toUpperCase()).toBe(entry.printedName.toUpperCase())
    expect(await page.getByTestId('decoded-tracking').textContent()).toBe(entry.spec.tracking)
    await page.getByTestId('label-doubt').waitFor()
    const suggestions = page.getByRole('list', { name: 'Suggested recipients' }).getByRole('button')
    expect(await suggestions.count()).toBe(2)
    await expectAccessible(page, 'receive (label as read)')
    await screenshot(page, 'receive-label-photo')

    // Saved as it is: no recipient, so into the queue.
    await page.getByRole('button', { name: 'Save package' }).click()
    await page.getByRole('link', { name: entry.spec.tracking }).waitFor()
    await page.getByText('waits in the scan-issues queue').waitFor()

    await page.getByRole('link', { name: 'Scan issues' }).click()
    await page.getByRole('heading', { name: 'Scan issues' }).waitFor()
    const issue = page.getByTestId('scan-issue')
    await issue.waitFor()
    expect(await issue.locator('mark').textContent()).toBe(entry.printedName)
    await expectAccessible(page, 'scan issues')
    await screenshot(page, 'scan-issues')
    const second = (await issue
      .getByRole('list', { name: 'Suggested recipients' })
      .getByRole('button')
      .nth(1)
      .textContent())!
    await issue.focus()
    await page.keyboard.press('2')
    await page.getByTestId('queue-empty').waitFor()

    const res = await h.t.inject({
      method: 'GET',
      url: `/api/v1/packages/tracking/${entry.spec.tracking}`,
      headers: client.auth,
    })
    const receiver = res.json().receiver.contactId
    expect(namesakes).toContain(receiver)
    expect(second).toContain(directoryName)
    expect(h.elsewhere).toEqual([])
    expect(h.pageErrors).toEqual([])
  }, 180_000) // OCR on a busy machine, the first read loading the model
  it('a photo whose text names nobody: saved without a recipient, the parcel still waits in the queue (no match)', async () => {
    // A barcode and no printed text: the OCR reads no name, so there is nothing to match.
    const symbol = await renderSymbol(SYMBOLS.upsCode128, 3)
    const scene = labelPhoto({
      width: 800,
      height: 500,
      seed: 3,
      placements: [{ symbol, at: { x: 0.5, y: 0.5 }, degrees: 0 }],
    })
    const { page } = await h.open(DESKTOP)
    await page.goto('/console')
    await signIn(page, admin.email, admin.password)
    await page.getByRole('heading', { name: 'Dashboard' }).waitFor()
    await page.getByRole('link', { name: 'Receive' }).click()
    await page.getByRole('heading', { name: 'Receive' }).waitFor()
    await page.getByLabel('Location', { exact: true }).selectOption({ label: 'HQ' })
    await page
      .getByTestId('label-photo-input')
      .setInputFiles({ name: 'bare.jpg', mimeType: 'image/jpeg', buffer: Buffer.from(encodeImage(scene, 'jpeg')) })
    await page.getByRole('heading', { name: 'Label as read' }).waitFor({ timeout: 60_000 })
    const tracking = (await page.getByTestId('decoded-tracking').textContent())!
    await page.getByRole('button', { name: 'Save package' }).click()
    await page.getByRole('link', { name: tracking }).waitFor()
    await page.getByText('waits in the scan-issues queue').waitFor()

    const res = await h.t.inject({ method: 'GET', url: '/api/v1/scanissues', headers: client.auth })
    const issues = res.json().scanIssues as Array<{ trackingNumber: string; reason: string; imageId?: string }>
    const issue = issues.find((i) => i.trackingNumber === tracking)
    expect(issue).toMatchObject({ reason: 'no_match', imageId: expect.any(String) })
    expect(h.pageErrors).toEqual([])
  }, 180_000)
})
