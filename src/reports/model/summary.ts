import type { Report } from '../api/schemas.js'

/** The date (YYYY-MM-DD) and hour (0..23) on a wall clock of `zone` at an instant. */
export function wallClock(at: Date, zone: string): { day: string; hour: number } {
  const parts = new Intl.DateTimeFormat('en-CA', {
    timeZone: zone,
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    hourCycle: 'h23',
  }).formatToParts(at)
  const get = (t: string) => parts.find((p) => p.type === t)?.value ?? ''
  return { day: `${get('year')}-${get('month')}-${get('day')}`, hour: Number(get('hour')) }
}

const dayBefore = (day: string) => new Date(Date.parse(`${day}T00:00:00Z`) - 86_400_000).toISOString().slice(0, 10)

/**
 * The summary due at `now`: from the local `hour` of each local day of `zone` until its end, the
 * summary of the day before. Undefined before that hour. Read off the wall clock, so a day whose
 * `hour` is skipped by a DST jump (02:00 on a spring-forward night) has it due at the first hour
 * after the jump, and one whose hour comes twice (fall back) has it due from the first: the send
 * record (one per admin and day) keeps the second from sending again.
 */
export function summaryDue(now: Date, zone: string, hour: number): { day: string } | undefined {
  const wall = wallClock(now, zone)
  return wall.hour >= hour ? { day: dayBefore(wall.day) } : undefined
}

/** Whole days waiting above which a parcel is unclaimed, in the oldest waiting the report lists. */
export function unclaimedPast(oldest: Report['oldestWaiting'], days: number): number {
  return oldest.filter((o) => o.waitingDays >= days).length
}

export interface SummaryFacts {
  day: string
  report: Report
  /** The report's oldest waiting was cut at this many: the unclaimed count may be more. */
  oldestRead: number
  unclaimedDays: number
  link: string
}

const esc = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)

/** The email: subject, plain text and HTML (a table per part), from the day's report. */
export function composeSummary(f: SummaryFacts): { subject: string; text: string; html: string } {
  const { report: r } = f
  const received = r.volume.reduce((n, v) => n + v.received, 0)
  const handed = r.volume.reduce((n, v) => n + v.handedOver, 0)
  const notes = r.notifications.reduce((s, n) => ({ sent: s.sent + n.sent, failed: s.failed + n.failed }), {
    sent: 0,
    failed: 0,
  })
  const unclaimed = unclaimedPast(r.oldestWaiting, f.unclaimedDays)
  const unclaimedText = unclaimed >= f.oldestRead ? `${f.oldestRead} or more` : String(unclaimed)
  const oldest = r.oldestWaiting.slice(0, 5)
  const text = [
    `Mailroom summary of ${f.day}`,
    '',
    `Received ${received}, handed over ${handed}.`,
    ...r.volume.map((v) => `  ${v.groupName}: received ${v.received}, handed over ${v.handedOver}`),
    '',
    `Waiting more than ${f.unclaimedDays} days: ${unclaimedText}.`,
    `Notifications: ${notes.sent} sent, ${notes.failed} failed.`,
    '',
    'Oldest waiting:',
    ...(oldest.length === 0 ? ['  none'] : []),
    ...oldest.map((o) => `  ${o.trackingNumber} at ${o.siteName}, ${o.waitingDays} days`),
    '',
    `Reports: ${f.link}`,
  ].join('\n')
  const row = (cells: Array<string | number>) => `<tr>${cells.map((c) => `<td>${esc(String(c))}</td>`).join('')}</tr>`
  const head = (cells: string[]) => `<tr>${cells.map((c) => `<th scope="col">${esc(c)}</th>`).join('')}</tr>`
  const html = [
    `<h1>Mailroom summary of ${esc(f.day)}</h1>`,
    `<p>Received ${received}, handed over ${handed}.</p>`,
    `<table>${head(['Site', 'Received', 'Handed over'])}${r.volume.map((v) => row([v.groupName, v.received, v.handedOver])).join('')}</table>`,
    `<p>Waiting more than ${f.unclaimedDays} days: ${esc(unclaimedText)}.<br>Notifications: ${notes.sent} sent, ${notes.failed} failed.</p>`,
    `<table>${head(['Oldest waiting', 'Site', 'Days'])}${oldest.map((o) => row([o.trackingNumber, o.siteName, o.waitingDays])).join('')}</table>`,
    `<p><a href="${esc(f.link)}">Open the reports</a></p>`,
  ].join('\n')
  return { subject: `Mailroom summary of ${f.day}`, text, html }
}
