import { describe, expect, it } from 'vitest'
import { renderEmail, type TemplateView } from '../../src/notifications/model/templates.js'
import { TEMPLATE_LIMITS } from '../../src/notifications/model/template-limits.js'
import { api } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// Issue 26: a template cannot cost more than a bound. A 625-character template nesting
// {{#packages}} 24 levels deep froze every subscription for 10.5 s: each level doubles the work.
const deep = (levels: number, inner = '{{trackingNumber}}') =>
  '{{#packages}}'.repeat(levels) + inner + '{{/packages}}'.repeat(levels)

const settings = (templates: Record<string, unknown>) => ({
  enabled: true,
  arrivalBatchSeconds: 0,
  reminderAfterHours: [],
  finalNoticeAfterHours: null,
  templates,
})

describe('templates refused when saved (400 naming the field and the limit)', () => {
  const t = useTestApp()
  const client = useClient(t)
  const refused = async (templates: Record<string, unknown>) => {
    // Each refusal below names the limit that stopped the template, so it was checked, not rendered.
    const res = await api(t, client).call('PUT', '/api/v1/notifications/settings', settings(templates))
    expect(res.statusCode, res.body).toBe(400)
    return (res.json().errors as Array<{ additionalParameters: string; errorDescription: string }>).map((e) => [
      e.additionalParameters,
      e.errorDescription,
    ])
  }

  it('refuses the 24-level nesting at once, naming the depth limit', async () => {
    const [[field, message]] = (await refused({ ARRIVAL: { html: deep(24) } })) as [[string, string]]
    expect(field).toBe('templates.ARRIVAL.html')
    expect(message).toContain(`${TEMPLATE_LIMITS.sectionDepth}`)
  })

  it('refuses {{#packages}} inside {{#packages}} (the work multiplies by the parcels at each level)', async () => {
    const [[field, message]] = (await refused({ fr: { REMINDER: { text: deep(2) } } })) as [[string, string]]
    expect(field).toBe('templates.fr.REMINDER.text')
    expect(message).toMatch(/packages/)
  })

  it('refuses a template whose rendering with sample parcels is larger than the part allows', async () => {
    // 200 characters per parcel line (under the depth limit, one list), far past the subject's size.
    const [[field, message]] = (await refused({
      PICKED_UP: { subject: `{{#packages}}${'x'.repeat(400)}{{/packages}}` },
    })) as [[string, string]]
    expect(field).toBe('templates.PICKED_UP.subject')
    expect(message).toContain(`${TEMPLATE_LIMITS.renderedChars.subject}`)
  })

  it('accepts the shipped templates and an ordinary override, and keeps them', async () => {
    const ok = await api(t, client).call(
      'PUT',
      '/api/v1/notifications/settings',
      settings({
        ARRIVAL: {
          subject: 'Parcels for {{recipientName}}',
          html: '<ul>{{#packages}}<li>{{trackingNumber}}{{#carrier}} ({{carrier}}){{/carrier}}</li>{{/packages}}</ul>',
        },
      }),
    )
    expect(ok.statusCode, ok.body).toBe(200)
  })
})

describe('rendering at send time has a budget', () => {
  const view = (parcels: number): TemplateView => ({
    recipientName: 'Ada',
    count: parcels,
    one: parcels === 1,
    aParcel: 'A parcel',
    parcels: 'parcels',
    packages: Array.from({ length: parcels }, (_, i) => ({
      trackingNumber: `1Z${i}`,
      carrier: 'UPS',
      sender: 'ACME',
      location: 'Shelf',
      packageLocation: '',
      pickupCode: '',
      flags: '',
    })),
    perishable: false,
    siteName: 'HQ',
    openingHours: '',
    pickupCode: '',
    qrCodeSrc: 'cid:qr',
    step: 1,
    hoursWaiting: '',
    collectedBy: '',
    onBehalf: false,
    collectedAt: '',
    unsubscribeUrl: 'https://x.test/u',
  })

  it('stops a template saved before the limits within the budget instead of freezing the process', () => {
    // Stopped by the budget (its error), not by finishing: unbounded, this template takes seconds (issue 26: 10.5 s).
    expect(() => renderEmail('ARRIVAL', { text: deep(24) }, view(2))).toThrow(/budget/)
  })

  it('stops a rendering larger than the part allows', () => {
    expect(() =>
      renderEmail('ARRIVAL', { html: `{{#packages}}${'x'.repeat(10_000)}{{/packages}}` }, view(200)),
    ).toThrow(/budget/)
  })

  it('renders the shipped templates for many parcels within the budget', () => {
    for (const kind of ['ARRIVAL', 'REMINDER', 'FINAL_NOTICE', 'PICKED_UP'] as const)
      expect(renderEmail(kind, undefined, view(500)).html).toContain('1Z499')
  })
})
