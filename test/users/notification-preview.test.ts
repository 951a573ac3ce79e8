import { describe, expect, it } from 'vitest'
import { createUser, signIn } from '../support/console-session.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// POST /api/v1/notifications/settings/preview (issue 25.6): the settings being edited, unsaved, → the
// email of a kind for a sample parcel, by the sending renderer and after PUT's checks. Admin only.

const t = useTestApp()
const admin = useClient(t)

const DEFAULTS = { enabled: true, arrivalBatchSeconds: 60, reminderAfterHours: [], finalNoticeAfterHours: null }

const preview = (query: string, payload: object, headers: Record<string, string> = admin.auth) =>
  t.inject({ method: 'POST', url: `/api/v1/notifications/settings/preview${query}`, headers, payload })

describe('the notification preview', () => {
  it('renders the edited template with the sample parcel, saving nothing', async () => {
    const res = await preview('?kind=ARRIVAL', {
      ...DEFAULTS,
      templates: { ARRIVAL: { subject: 'For {{recipientName}}: {{count}} at {{siteName}} ({{pickupCode}})' } },
    })
    expect(res.statusCode, res.body).toBe(200)
    const body = res.json()
    expect(body).toMatchObject({
      kind: 'ARRIVAL',
      language: 'en',
      subject: 'For Alex Sample: 1 at Mailroom 1, Building 1 (K7M2QD)',
    })
    // The parts not overridden are the shipped ones; the QR image is inlined for a page.
    expect(body.text).toContain('1Z999AA10123456784 (UPS)')
    // The place as a sent email words it, not the record's raw hierarchy.
    expect(body.text).toContain('Mailroom 1, Building 1 — shelf A-3')
    expect(body.text).not.toContain('|')
    expect(body.text).toContain('Opening hours: Mon–Fri 08:00–18:00')
    expect(body.html).toContain('data:image/png;base64,')
    expect(body.html).not.toContain('cid:')
    const stored = await t.inject({ method: 'GET', url: '/api/v1/notifications/settings', headers: admin.auth })
    expect(stored.json().templates).toEqual({})
  })

  it('shows another kind and language from the shipped templates', async () => {
    const res = await preview('?kind=PICKED_UP&language=fr', { ...DEFAULTS, templates: {} })
    expect(res.statusCode, res.body).toBe(200)
    expect(res.json().language).toBe('fr')
    expect(res.json().subject).toMatch(/colis/i)
  })

  it('refuses what PUT refuses, naming the same fields: 400, never a 500', async () => {
    const res = await preview('', {
      ...DEFAULTS,
      reminderAfterHours: [48, 24],
      templates: { ARRIVAL: { html: '<p>{{{recipientName}}}</p>' } },
    })
    expect(res.statusCode).toBe(400)
    const fields = res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)
    expect(fields).toEqual(expect.arrayContaining(['reminderAfterHours[1]', 'templates.ARRIVAL.html']))
    const kind = await preview('?kind=BIRTHDAY', { ...DEFAULTS, templates: {} })
    expect(kind.statusCode).toBe(400)
  })

  it('is refused to a clerk (403), like the settings it previews', async () => {
    await createUser(t, admin, { email: 'clerk@preview.example', role: 'clerk' })
    const s = await signIn(t, 'clerk@preview.example')
    const res = await t.inject({
      method: 'POST',
      url: '/api/v1/notifications/settings/preview',
      ...s.write,
      payload: { ...DEFAULTS, templates: {} },
    })
    expect(res.statusCode).toBe(403)
  })
})
