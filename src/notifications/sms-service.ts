import { randomUUID } from 'node:crypto'
import type { Db } from '../platform/db/database.js'
import { inTransaction } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, ValidationErrors } from '../platform/kit/errors.js'
import { signatureMatches } from './model/signature.js'
import { NOTIFICATION_ERRORS } from './model/errors.js'
import { DEFAULT_CHOICES, keywordOf, normalizePhone, type ChannelChoices } from './model/channels.js'
import { NOTIFICATION_KINDS } from './model/kinds.js'
import { keywordReply } from './model/text.js'
import type { RecipientChannels, RecipientChannelsInput, SmsSettings, SmsSettingsInput } from './api/sms-schemas.js'
import { openSmsSecret, sealSmsSecret, type SmsProviders } from './jobs/providers.js'
import * as repo from './store/sms.js'

export interface SmsServiceDeps {
  db: Db
  clock: Clock
  secretKey: Buffer
  publicUrl: string
  /** SMS_ALLOW_HTTP: a Messages API URL may be plain http:// (tests, a gateway on the local network). */
  allowHttp: boolean
  /** SMS_DEFAULT_COUNTRY: the country of a phone number written without one. */
  defaultCountry: string
  providers: SmsProviders
  contact(subId: string, contactId: string): Promise<{ phone?: string } | undefined>
  log: { error(obj: Record<string, unknown>, msg: string): void }
}

/** How long an SMPP reply known by its content only is taken for the SMSC's re-delivery of the same one. */
const CONTENT_REDELIVERY_MS = 24 * 3600_000

const iso = (d: Date | null | undefined) => (d ? d.toISOString() : undefined)

/** Where a provider URL sends its credentials: scheme, host and port (a path on the same host is the same party). */
function hostOf(url: string | null | undefined): string {
  try {
    const u = new URL(url ?? '')
    return `${u.protocol}//${u.host.toLowerCase()}`
  } catch {
    return url ?? ''
  }
}

/**
 * Texts' settings and replies (issue 29): the facility's provider and channels, each recipient's
 * channels and consent, and what phones and providers send back (STOP/START/HELP, delivery receipts).
 */
export function createSmsService(deps: SmsServiceDeps) {
  const { db, clock } = deps
  const webhookBase = (subId: string) => `${deps.publicUrl}/notifications/sms/${encodeURIComponent(subId)}`

  function toSettings(subId: string, row: repo.SmsSettingsRow | undefined): SmsSettings {
    const out: SmsSettings = {
      provider: row?.provider ?? 'none',
      secretSet: !!row?.secret_sealed,
      channels: row?.channels ?? DEFAULT_CHOICES,
      quietHours: row?.quiet_start && row.quiet_end ? { start: row.quiet_start, end: row.quiet_end } : null,
      inboundUrl: `${webhookBase(subId)}/inbound`,
      statusUrl: `${webhookBase(subId)}/status`,
    }
    if (row?.url) out.url = row.url
    if (row?.account) out.account = row.account
    if (row?.from_number) out.from = row.from_number
    if (row?.sender_name) out.senderName = row.sender_name
    return out
  }

  /** What the schema cannot say: the URL's scheme fits the provider, what it needs is there, defaults are allowed. */
  function check(input: SmsSettingsInput, secretKept: boolean, moved: boolean): void {
    const problems: Array<{ field: string; description: string }> = []
    const need = (field: 'url' | 'account' | 'from') => {
      if (!input[field]) problems.push({ field, description: `${field} is required with provider ${input.provider}` })
    }
    if (input.provider !== 'none') {
      need('url')
      need('account')
      need('from')
      if (!input.secret && moved)
        problems.push({
          field: 'secret',
          description: 'secret is required when url points elsewhere: the stored one is not sent to another host',
        })
      else if (!input.secret && !secretKept)
        problems.push({ field: 'secret', description: `secret is required with provider ${input.provider}` })
      if (input.url) {
        const schemes =
          input.provider === 'smpp' ? ['smpp:', 'ssmpp:'] : deps.allowHttp ? ['https:', 'http:'] : ['https:']
        let scheme = ''
        try {
          scheme = new URL(input.url).protocol
        } catch {
          // reported below
        }
        if (!schemes.includes(scheme))
          problems.push({ field: 'url', description: `url must be a ${schemes.map((s) => `${s}//`).join(' or ')} URL` })
        // Parsers disagree on these in the host part (user info, escapes), so the host checked
        // against the address guard might not be the one connected to.
        else if (/[@\\%]/.test(/^[a-z]+:\/\/([^/?#]*)/i.exec(input.url)?.[1] ?? ''))
          problems.push({ field: 'url', description: 'url must name its host plainly: no @, \\ or % before the path' })
      }
    }
    if (input.channels.allowed.length === 0)
      problems.push({ field: 'channels.allowed', description: 'channels.allowed must name at least one channel' })
    for (const kind of NOTIFICATION_KINDS)
      for (const c of input.channels.defaults[kind] ?? [])
        if (!input.channels.allowed.includes(c))
          problems.push({
            field: `channels.defaults.${kind}`,
            description: `channels.defaults.${kind}: ${c} is not allowed`,
          })
    if (problems.length > 0) throw new ValidationErrors(problems)
  }

  async function contactOrThrow(subId: string, contactId: string) {
    const c = await deps.contact(subId, contactId)
    if (!c) throw new AppError(NOTIFICATION_ERRORS.NOTIFICATION_CONTACT_NOT_FOUND, { detail: { contactId } })
    return c
  }

  async function recipient(subId: string, contactId: string, phone: string | undefined): Promise<RecipientChannels> {
    const row = await repo.findRecipientChannels(db, subId, contactId)
    const stop = phone ? await repo.findStop(db, subId, phone) : undefined
    const sms: RecipientChannels['sms'] = { optedIn: row?.sms_opt_in_at != null, stopped: stop?.stopped === true }
    if (row?.sms_opt_in_at) sms.optedInAt = iso(row.sms_opt_in_at)!
    if (row?.sms_opt_in_source) sms.source = row.sms_opt_in_source
    if (phone) sms.phone = phone
    if (stop) sms.stopChangedAt = stop.changed_at.toISOString()
    return { contactId, kinds: row?.kinds ?? {}, sms }
  }

  /** The reply to a keyword, through the facility's provider; a failure is logged, not retried (docs/sms.md). */
  async function reply(subId: string, to: string, keyword: 'STOP' | 'START' | 'HELP'): Promise<void> {
    try {
      const p = await deps.providers.forSub(subId)
      if (p) await p.provider.send(p.from, { to, body: keywordReply(keyword, p.senderName) })
    } catch (e) {
      deps.log.error({ err: e, subId }, `the reply to ${keyword} could not be sent`)
    }
  }

  return {
    async getSettings(subId: string): Promise<SmsSettings> {
      return toSettings(subId, await repo.findSmsSettings(db, subId))
    },

    async putSettings(subId: string, input: SmsSettingsInput): Promise<SmsSettings> {
      const kept = await repo.findSmsSettings(db, subId)
      // The secret is write-only: absent, the one stored is kept, for the same provider at the same
      // host only. A URL pointing elsewhere needs it given again (refused, not cleared: texts would
      // stop without a word), or an admin's typo, or a rogue one, hands the credentials to that host.
      const sameProvider = kept?.provider === input.provider && kept.secret_sealed !== null
      const moved = sameProvider && !!input.url && hostOf(input.url) !== hostOf(kept.url)
      const keptSecret = sameProvider && !moved ? kept.secret_sealed : null
      check(input, keptSecret !== null, moved)
      const row: repo.SmsSettingsRow = {
        sub_id: subId,
        provider: input.provider,
        url: input.url ?? null,
        account: input.account ?? null,
        secret_sealed: input.secret ? sealSmsSecret(deps.secretKey, subId, input.secret) : keptSecret,
        from_number: input.from ?? null,
        sender_name: input.senderName ?? null,
        channels: input.channels as ChannelChoices,
        quiet_start: input.quietHours?.start ?? null,
        quiet_end: input.quietHours?.end ?? null,
        updated_at: clock.now(),
      }
      await repo.upsertSmsSettings(db, row)
      return toSettings(subId, row)
    },

    async getRecipient(subId: string, contactId: string): Promise<RecipientChannels> {
      const c = await contactOrThrow(subId, contactId)
      return recipient(subId, contactId, normalizePhone(c.phone, deps.defaultCountry))
    },

    /** Opting in records when and how (`source`: a signed form, the desk, the resident portal); opting out clears both. */
    async putRecipient(subId: string, contactId: string, input: RecipientChannelsInput): Promise<RecipientChannels> {
      const c = await contactOrThrow(subId, contactId)
      const row = await repo.findRecipientChannels(db, subId, contactId)
      const was = row?.sms_opt_in_at != null
      if (input.sms.optedIn && !was && !input.sms.source)
        throw new ValidationErrors([
          { field: 'sms.source', description: 'sms.source is required to opt in: where the consent was given' },
        ])
      const now = clock.now()
      await repo.upsertRecipientChannels(db, {
        sub_id: subId,
        contact_id: contactId,
        kinds: input.kinds,
        sms_opt_in_at: input.sms.optedIn ? (was ? row.sms_opt_in_at : now) : null,
        sms_opt_in_source: input.sms.optedIn ? (was ? row.sms_opt_in_source : input.sms.source!) : null,
        updated_at: now,
      })
      return recipient(subId, contactId, normalizePhone(c.phone, deps.defaultCountry))
    },

    /** The provider's request signature (model/signature.ts); a bad one is a 404, as is a facility without this provider. */
    async verifyWebhook(subId: string, path: string, params: Record<string, string>, signature: string | undefined) {
      const s = await repo.findSmsSettings(db, subId)
      const refused = () => new AppError(NOTIFICATION_ERRORS.SMS_WEBHOOK_REFUSED, { detail: { subId } })
      if (!s || s.provider !== 'messages' || !s.secret_sealed || !signature) throw refused()
      const token = openSmsSecret(deps.secretKey, subId, s.secret_sealed)
      if (!signatureMatches(token, deps.publicUrl + path, params, signature)) throw refused()
    },

    /**
     * A reply from a phone. STOP stops texts to that number at once (every text not yet sent is
     * suppressed when its turn comes) and is confirmed by one reply; START undoes it; HELP is
     * answered. A provider's retry of the same message (same id) changes and answers nothing.
     */
    async inbound(
      subId: string,
      m: { messageId?: string; from: string; body: string; identity?: 'smsc' | 'content' },
    ): Promise<void> {
      const phone = normalizePhone(m.from, deps.defaultCountry)
      if (!phone) return
      const keyword = keywordOf(m.body)
      const now = clock.now()
      const first = await inTransaction(db, async (trx) => {
        const row = {
          sub_id: subId,
          message_id: m.messageId ?? `local:${randomUUID()}`,
          phone,
          body: m.body,
          received_at: now,
        }
        // An id the provider gave: its retries are known forever. Content only: a re-delivery is known
        // while it is the number's latest reply, for a day (an SMSC's retries come within hours).
        const seen =
          m.identity === 'content'
            ? await repo.recordInboundByContent(trx, row, new Date(now.getTime() - CONTENT_REDELIVERY_MS))
            : await repo.recordInbound(trx, row)
        if (seen && (keyword === 'STOP' || keyword === 'START'))
          await repo.recordStop(trx, { sub_id: subId, phone, stopped: keyword === 'STOP', keyword, changed_at: now })
        return seen
      })
      if (first && keyword) await reply(subId, phone, keyword)
    },

    /** A delivery receipt: the text's delivery status in the list and the console. */
    async receipt(subId: string, r: { messageId: string; status: string; error?: string }): Promise<void> {
      await repo.recordReceipt(db, subId, r.messageId, {
        status: r.status,
        at: clock.now(),
        ...(r.error ? { error: r.error } : {}),
      })
    },
  }
}

export type SmsService = ReturnType<typeof createSmsService>
