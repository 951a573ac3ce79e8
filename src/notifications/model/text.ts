import { SegmentedMessage } from 'sms-segments-calculator'
import type { NotificationKind } from './kinds.js'
import { pickupCodeOf, type PackageView } from './compose.js'

/** A text is at most this many segments (GSM-7: 153 characters each once split; UCS-2: 67). */
export const MAX_SEGMENTS = 2

/** Segments a body takes, by the GSM 03.38 / UCS-2 rules (Twilio's calculator, the escapes counted twice). */
export function segmentsOf(body: string): number {
  return new SegmentedMessage(body, 'auto').segmentsCount
}

export interface TextInput {
  kind: NotificationKind
  packages: readonly PackageView[]
  recipientName: string
  /** Where the parcels wait ("Mailroom 1, Building 1"): the place's building part. */
  where?: string
  collector?: string
}

const parcels = (n: number) => (n === 1 ? '1 parcel' : `${n} parcels`)

/**
 * Pure: the text of a notification, pickup code first (a phone's preview shows the start), at most
 * MAX_SEGMENTS. The longest wording that fits is taken: with the recipient's name, the place and the
 * opt-out line, then without the name, then without the opt-out line, then with the place cut.
 * A name or a place in another script makes the whole text UCS-2, hence the fallbacks.
 */
export function composeText(input: TextInput): string {
  const codes = [...new Set(input.packages.map(pickupCodeOf).filter((c): c is string => c !== undefined))]
  const code = input.kind !== 'PICKED_UP' && codes.length === 1 ? `Pickup code ${codes[0]}. ` : ''
  const n = parcels(input.packages.length)
  const say = (name: string, where: string) => {
    const at = where ? ` at ${where}` : ''
    const forWhom = name ? ` for ${name}` : ''
    switch (input.kind) {
      case 'ARRIVAL':
        return `${code}${n} arrived${forWhom}${at}.`
      case 'REMINDER':
        return `${code}Reminder: ${n}${forWhom} still waiting${at}.`
      case 'FINAL_NOTICE':
        return `${code}Final notice: ${n}${forWhom} still waiting${at}; please collect soon.`
      case 'PICKED_UP':
        return `${n}${forWhom} collected${at}${input.collector ? ` by ${input.collector}` : ''}.`
      default: {
        const never: never = input.kind
        throw new Error(`unknown notification kind ${String(never)}`)
      }
    }
  }
  const stop = ' Reply STOP to opt out.'
  const where = input.where ?? ''
  const tries = [
    say(input.recipientName, where) + stop,
    say('', where) + stop,
    say('', where),
    say('', where.slice(0, 40)),
    say('', ''),
  ]
  return tries.find((t) => segmentsOf(t) <= MAX_SEGMENTS) ?? tries.at(-1)!.slice(0, 60)
}

/** The fixed answers to reply words (docs/sms.md): one each, short enough for one segment. */
export function keywordReply(keyword: 'STOP' | 'START' | 'HELP', facility: string): string {
  switch (keyword) {
    case 'STOP':
      return `${facility}: you will get no more texts from us. Reply START to receive them again.`
    case 'START':
      return `${facility}: texts about your parcels are on again. Reply STOP to opt out, HELP for help.`
    case 'HELP':
      return `${facility}: texts about parcels waiting for you. Ask at the mailroom desk for help. Reply STOP to opt out.`
    default: {
      const never: never = keyword
      throw new Error(`unknown keyword ${String(never)}`)
    }
  }
}
