import Mustache from 'mustache'
import type { NotificationKind } from './kinds.js'
import { FRENCH_TEMPLATES } from './templates-fr.js'
import {
  renderWithBudget,
  structureProblem,
  TEMPLATE_LIMITS,
  TemplateBudgetExceeded,
  type TemplatePart,
} from './template-limits.js'

/**
 * The emails' templates, rendered with Mustache. Why Mustache rather than Handlebars: it is
 * logic-less (a subscription's template can only substitute and repeat, never call helpers or
 * reach prototypes: Handlebars has had prototype-access and code-execution advisories through its
 * helpers and compiler), it escapes `{{variable}}` for HTML by default, and it has no dependencies.
 * A subscription's own template may not use the unescaped forms (`{{{x}}}`, `{{& x}}`): the
 * settings API refuses them, so every variable of an HTML part is escaped whoever wrote it.
 */

export interface Template {
  subject: string
  text: string
  html: string
}
export type TemplateOverride = Partial<Template>

/** What every template can use (docs/notifications.md lists them). */
export interface TemplateView {
  recipientName: string
  count: number
  /** True for exactly one parcel (`{{#one}}…{{/one}}{{^one}}…{{/one}}`). */
  one: boolean
  packages: Array<{
    trackingNumber: string
    carrier: string
    sender: string
    location: string
    packageLocation: string
    pickupCode: string
    /** Its flags in words ("perishable, fragile"; issue 30); empty: none. */
    flags: string
  }>
  /** A parcel flagged perishable is among them (not in PICKED_UP): the email asks to collect soon. */
  perishable: boolean
  siteName: string
  /** The opening hours of the parcels' site or its nearest ancestor that has them (empty: the line is left out). */
  openingHours: string
  pickupCode: string
  /** An <img> source for the QR code of the pickup code (inline attachment), in HTML parts. */
  qrCodeSrc: string
  /** REMINDER: the step (1 for the first); hours the oldest parcel has waited. */
  step: number
  hoursWaiting: string
  collectedBy: string
  /** PICKED_UP: someone other than the recipient collected for them. */
  onBehalf: boolean
  collectedAt: string
  unsubscribeUrl: string
  /** "A parcel", or "An item" when the mailroom's own items (no carrier) are in it; and the plural. */
  aParcel: string
  parcels: string
}

const PARCEL_LINES_TEXT = `{{#packages}}
- {{trackingNumber}}{{#carrier}} ({{carrier}}){{/carrier}}{{#sender}}, from {{sender}}{{/sender}}{{#location}}, at {{location}}{{/location}}{{#packageLocation}} / {{packageLocation}}{{/packageLocation}}{{#flags}} [{{flags}}]{{/flags}}
{{/packages}}`
const PARCEL_LINES_HTML = `<ul>{{#packages}}<li><strong>{{trackingNumber}}</strong>{{#carrier}} ({{carrier}}){{/carrier}}{{#sender}}, from {{sender}}{{/sender}}{{#location}}, at {{location}}{{/location}}{{#packageLocation}} / {{packageLocation}}{{/packageLocation}}{{#flags}} <strong>[{{flags}}]</strong>{{/flags}}</li>{{/packages}}</ul>`
const CODE_TEXT = `{{#pickupCode}}
Your pickup code: {{pickupCode}}
{{/pickupCode}}`
const CODE_HTML = `{{#pickupCode}}<p>Your pickup code: <strong style="font-size:1.4em;letter-spacing:.1em">{{pickupCode}}</strong></p><p><img src="{{qrCodeSrc}}" alt="QR code of pickup code {{pickupCode}}" width="160" height="160"></p>{{/pickupCode}}`
const PERISHABLE_TEXT = `{{#perishable}}
Perishable: please collect it as soon as you can.
{{/perishable}}`
const PERISHABLE_HTML = `{{#perishable}}<p><strong>Perishable: please collect it as soon as you can.</strong></p>{{/perishable}}`
const HOURS_TEXT = `{{#openingHours}}
Opening hours: {{openingHours}}
{{/openingHours}}`
const HOURS_HTML = `{{#openingHours}}<p>Opening hours: {{openingHours}}</p>{{/openingHours}}`
const FOOTER_TEXT = `
--
You receive this because you are a recipient at this mailroom. Unsubscribe: {{unsubscribeUrl}}
`
const FOOTER_HTML = `<hr><p style="font-size:.85em;color:#555">You receive this because you are a recipient at this mailroom. <a href="{{unsubscribeUrl}}">Unsubscribe</a></p>`
const page = (body: string) =>
  `<!doctype html><html><body style="font-family:sans-serif;line-height:1.4">${body}${FOOTER_HTML}</body></html>`

/** The shipped templates, one per kind. */
export const DEFAULT_TEMPLATES: Readonly<Record<NotificationKind, Template>> = {
  ARRIVAL: {
    subject:
      '{{#one}}{{aParcel}} is{{/one}}{{^one}}{{count}} {{parcels}} are{{/one}} waiting for you{{#siteName}} at {{siteName}}{{/siteName}}',
    text: `Hello {{recipientName}},

{{#one}}{{aParcel}} has{{/one}}{{^one}}{{count}} {{parcels}} have{{/one}} arrived for you:
${PARCEL_LINES_TEXT}${PERISHABLE_TEXT}${HOURS_TEXT}${CODE_TEXT}
Please collect {{#one}}it{{/one}}{{^one}}them{{/one}}{{#siteName}} at {{siteName}}{{/siteName}}.
${FOOTER_TEXT}`,
    html: page(
      `<p>Hello {{recipientName}},</p><p>{{#one}}{{aParcel}} has{{/one}}{{^one}}{{count}} {{parcels}} have{{/one}} arrived for you:</p>${PARCEL_LINES_HTML}${PERISHABLE_HTML}${HOURS_HTML}${CODE_HTML}<p>Please collect {{#one}}it{{/one}}{{^one}}them{{/one}}{{#siteName}} at {{siteName}}{{/siteName}}.</p>`,
    ),
  },
  REMINDER: {
    subject: 'Reminder: {{#one}}a parcel is{{/one}}{{^one}}{{count}} parcels are{{/one}} still waiting for you',
    text: `Hello {{recipientName}},

{{#one}}This parcel is{{/one}}{{^one}}These parcels are{{/one}} still waiting for you (for {{hoursWaiting}} hours):
${PARCEL_LINES_TEXT}${PERISHABLE_TEXT}${HOURS_TEXT}${CODE_TEXT}${FOOTER_TEXT}`,
    html: page(
      `<p>Hello {{recipientName}},</p><p>{{#one}}This parcel is{{/one}}{{^one}}These parcels are{{/one}} still waiting for you (for {{hoursWaiting}} hours):</p>${PARCEL_LINES_HTML}${PERISHABLE_HTML}${HOURS_HTML}${CODE_HTML}`,
    ),
  },
  FINAL_NOTICE: {
    subject: 'Final notice: {{#one}}a parcel{{/one}}{{^one}}{{count}} parcels{{/one}} will be returned to the sender',
    text: `Hello {{recipientName}},

{{#one}}This parcel has{{/one}}{{^one}}These parcels have{{/one}} not been collected and will soon be returned to the sender:
${PARCEL_LINES_TEXT}${PERISHABLE_TEXT}${HOURS_TEXT}${CODE_TEXT}${FOOTER_TEXT}`,
    html: page(
      `<p>Hello {{recipientName}},</p><p>{{#one}}This parcel has{{/one}}{{^one}}These parcels have{{/one}} not been collected and will soon be returned to the sender:</p>${PARCEL_LINES_HTML}${PERISHABLE_HTML}${HOURS_HTML}${CODE_HTML}`,
    ),
  },
  PICKED_UP: {
    subject: '{{#one}}Your parcel was{{/one}}{{^one}}Your {{count}} parcels were{{/one}} collected',
    text: `Hello {{recipientName}},

{{#one}}This parcel was{{/one}}{{^one}}These parcels were{{/one}} collected{{#collectedBy}} by {{collectedBy}}{{#onBehalf}} on your behalf{{/onBehalf}}{{/collectedBy}} on {{collectedAt}}{{#siteName}} at {{siteName}}{{/siteName}}:
${PARCEL_LINES_TEXT}
If this was not you, please contact the mailroom.
${FOOTER_TEXT}`,
    html: page(
      `<p>Hello {{recipientName}},</p><p>{{#one}}This parcel was{{/one}}{{^one}}These parcels were{{/one}} collected{{#collectedBy}} by <strong>{{collectedBy}}</strong>{{#onBehalf}} on your behalf{{/onBehalf}}{{/collectedBy}} on {{collectedAt}}{{#siteName}} at {{siteName}}{{/siteName}}:</p>${PARCEL_LINES_HTML}<p>If this was not you, please contact the mailroom.</p>`,
    ),
  },
}

type Spans = ReturnType<typeof Mustache.parse>

/** Token types that print a value without escaping it. */
const UNESCAPED = new Set(['&', '{'])
function unescapedIn(spans: Spans): boolean {
  return spans.some((s) => UNESCAPED.has(s[0]) || (Array.isArray(s[4]) && unescapedIn(s[4])))
}

/**
 * Why a subscription's template cannot be used, or undefined: it parses, escapes every variable,
 * stays within the structure's limits, and renders within the part's budget for a sample of one
 * parcel and of TEMPLATE_LIMITS.sampleParcels parcels. A template that fails is refused when
 * saved, not when an email is sent.
 */
export function templateProblem(source: string, part: TemplatePart): string | undefined {
  let spans: Spans
  try {
    spans = Mustache.parse(source)
  } catch (e) {
    return `is not a valid Mustache template: ${(e as Error).message}`
  }
  if (unescapedIn(spans)) return 'may not print a variable unescaped ({{{x}}} or {{& x}}); use {{x}}'
  const structure = structureProblem(spans)
  if (structure) return structure
  for (const parcels of [1, TEMPLATE_LIMITS.sampleParcels]) {
    try {
      renderPart(part, source, sampleView(parcels))
    } catch (e) {
      if (e instanceof TemplateBudgetExceeded)
        return `renders past its budget with ${parcels} sample parcel${parcels === 1 ? '' : 's'} (at most ${TEMPLATE_LIMITS.renderedChars[part]} characters, ${TEMPLATE_LIMITS.steps} steps, ${TEMPLATE_LIMITS.renderMs} ms)`
      return `fails to render with a sample parcel: ${(e as Error).message}`
    }
  }
  return undefined
}

/** A view with every variable set to a plausible value of its longest kind, and `parcels` parcels. */
function sampleView(parcels: number): TemplateView {
  const name = 'Alexandra Example-Sample'
  return {
    recipientName: name,
    count: parcels,
    one: parcels === 1,
    aParcel: 'A parcel',
    parcels: 'parcels',
    packages: Array.from({ length: parcels }, (_, i) => ({
      trackingNumber: `1Z999AA1012345678${i}`,
      carrier: 'United Parcel Service',
      sender: `${name}, Example Corporation`,
      location: 'Headquarters / Building A / Mailroom',
      packageLocation: 'Shelf 12',
      pickupCode: '',
      flags: 'signature required, perishable, medication',
    })),
    perishable: true,
    siteName: 'Headquarters',
    openingHours: 'Mon–Fri 08:00–18:00',
    pickupCode: 'ABC123',
    qrCodeSrc: 'cid:pickup-code',
    step: 1,
    hoursWaiting: '48',
    collectedBy: name,
    onBehalf: true,
    collectedAt: 'Fri, 27 Nov 2026 09:00:00 GMT',
    unsubscribeUrl: 'https://mailroom.example/api/v1/notifications/unsubscribe?t=sample-token-of-usual-length',
  }
}

const plain = { escape: (v: unknown) => String(v) }
/** Header values are one line: a variable's CR/LF never starts a new header. */
const oneLine = (s: string) => s.replace(/[\r\n]+/g, ' ').trim()

/** The shipped templates per language; English is every other language's fallback. */
const SHIPPED: Readonly<Record<string, Readonly<Record<NotificationKind, Template>>>> = {
  en: DEFAULT_TEMPLATES,
  fr: FRENCH_TEMPLATES,
}

/** The languages with shipped templates (a region falls back to its language: `fr-CA` → `fr`). */
function shippedIn(language: string, kind: NotificationKind): Template {
  return (SHIPPED[language] ?? SHIPPED[language.split('-')[0]!] ?? DEFAULT_TEMPLATES)[kind]
}

/**
 * The three parts of one email: the subscription's override where it has one, the shipped
 * template of `language` elsewhere (English when none is shipped for it).
 */
export function renderEmail(
  kind: NotificationKind,
  override: TemplateOverride | undefined,
  view: TemplateView,
  language = 'en',
): Template {
  const t = { ...shippedIn(language, kind), ...override }
  return {
    subject: oneLine(renderPart('subject', t.subject, view)),
    text: renderPart('text', t.text, view),
    html: renderPart('html', t.html, view),
  }
}

/** One part within its budget (TEMPLATE_LIMITS): a template saved before the limits cannot freeze the process either. */
function renderPart(part: TemplatePart, source: string, view: TemplateView): string {
  // Plain text (and the subject, a header) is not HTML: its variables are printed as they are.
  return renderWithBudget(source, view, TEMPLATE_LIMITS.renderedChars[part], part === 'html' ? undefined : plain)
}
