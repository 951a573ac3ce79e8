import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/min'
import { NOTIFICATION_KINDS, type NotificationChannel, type NotificationKind } from './kinds.js'

/** The facility's channels (issue 29): which a recipient may have, and what each kind uses when they chose nothing. */
export interface ChannelChoices {
  allowed: NotificationChannel[]
  defaults: Record<NotificationKind, NotificationChannel[]>
}

/** A facility that chose nothing: email only, as before texts existed. */
export const DEFAULT_CHOICES: ChannelChoices = {
  allowed: ['email'],
  defaults: Object.fromEntries(NOTIFICATION_KINDS.map((k) => [k, ['email']])) as ChannelChoices['defaults'],
}

/** What is known of a recipient's texts when a notification is sent. */
export interface SmsStanding {
  /** Their number, normalized (normalizePhone); absent: none or unusable. */
  phone?: string
  /** They opted in to texts (when and where recorded in notification_recipient_channels). */
  optedIn: boolean
  /** Their number said STOP to this facility and has not said START since. */
  stopped: boolean
  /** The facility has a provider configured. */
  provider: boolean
}

/**
 * Pure: the channels one notification goes by. The recipient's choice for the kind wins, else the
 * facility's default, both cut to what the facility allows. A text needs a number, an opt-in, no
 * STOP and a provider; a recipient left with no channel at all is emailed (the email path applies
 * its own rules: unsubscribed, no address), so a STOP never silences the parcel's news entirely.
 */
export function resolveChannels(
  kind: NotificationKind,
  choices: ChannelChoices,
  preference: Partial<Record<NotificationKind, NotificationChannel[]>> | undefined,
  sms: SmsStanding,
): NotificationChannel[] {
  const wanted = preference?.[kind] ?? choices.defaults[kind] ?? ['email']
  const textable = sms.phone !== undefined && sms.optedIn && !sms.stopped && sms.provider
  const chosen = (['email', 'sms'] as const).filter(
    (c) => wanted.includes(c) && choices.allowed.includes(c) && (c === 'email' || textable),
  )
  return chosen.length > 0 ? chosen : ['email']
}

/** A phone number as compared and sent: `+` and digits (E.164 when it began with +), else undefined. */
export function normalizePhone(raw: string | null | undefined, defaultCountry: string): string | undefined {
  if (!raw) return undefined
  // E.164, so a contact's "(555) 123-4567" and the provider's "+15551234567" are one number; a
  // number without its country code is read in the facility's country (SMS_DEFAULT_COUNTRY).
  const n = parsePhoneNumberFromString(raw, defaultCountry as CountryCode)
  return n?.isPossible() ? n.number : undefined
}

/**
 * The reply words carriers and CTIA's handbook expect a sender to honour, as Twilio's and most
 * providers' opt-out handling reads them: one word, any case, surrounding blanks and punctuation ignored.
 */
const KEYWORDS: Record<string, 'STOP' | 'START' | 'HELP'> = {
  STOP: 'STOP',
  STOPALL: 'STOP',
  UNSUBSCRIBE: 'STOP',
  CANCEL: 'STOP',
  END: 'STOP',
  QUIT: 'STOP',
  OPTOUT: 'STOP',
  REVOKE: 'STOP',
  START: 'START',
  UNSTOP: 'START',
  YES: 'START',
  HELP: 'HELP',
  INFO: 'HELP',
}

export type ReplyKeyword = 'STOP' | 'START' | 'HELP'

export function keywordOf(body: string): ReplyKeyword | undefined {
  return KEYWORDS[
    body
      .trim()
      .replace(/[.!?\s]+$/, '')
      .toUpperCase()
  ]
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/** Minutes since local midnight at `at` in `timeZone` (UTC when the zone is unknown). */
function localMinutes(at: Date, timeZone: string): number {
  const format = (zone: string) =>
    new Intl.DateTimeFormat('en-GB', { timeZone: zone, hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })
      .formatToParts(at)
      .reduce(
        (m, p) => (p.type === 'hour' ? m + Number(p.value) * 60 : p.type === 'minute' ? m + Number(p.value) : m),
        0,
      )
  try {
    return format(timeZone)
  } catch {
    return format('UTC')
  }
}

/**
 * Pure: when quiet hours [start, end) ('HH:MM', local to the site) hold at `now`, the moment they
 * end; else undefined. A window whose start is after its end spans midnight (21:00–08:00). The end
 * is reckoned in whole minutes from now, so a daylight-saving change inside the window moves it by
 * that hour at most: the text waits an hour more or less, never goes out in the night.
 */
export function quietUntil(now: Date, timeZone: string, start: string, end: string): Date | undefined {
  const s = minutesOf(start)
  const e = minutesOf(end)
  if (s === e) return undefined
  const m = localMinutes(now, timeZone)
  const inside = s < e ? m >= s && m < e : m >= s || m < e
  if (!inside) return undefined
  const wait = (e - m + 1440) % 1440
  const at = new Date(now.getTime() + wait * 60_000)
  at.setUTCSeconds(0, 0)
  return at
}
