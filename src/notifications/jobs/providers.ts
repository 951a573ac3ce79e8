import { createHash } from 'node:crypto'
import type { Db } from '../../platform/db/database.js'
import { open, seal } from '../../platform/kit/crypto.js'
import type { GuardedFetch } from '../../platform/http/guarded-fetch.js'
import type { AddressPolicy, Lookup } from '../../platform/http/outbound-guard.js'
import { createMessagesApiProvider, type SmsProvider } from '../delivery/sms.js'
import { createSmppProvider, type SmppInbound } from '../delivery/smpp.js'
import { findSmsSettings, smppSubscriptions, type SmsSettingsRow } from '../store/sms.js'

/** A facility's provider, ready to send: its sender number and where its receipts go. */
export interface ResolvedProvider {
  provider: SmsProvider
  from: string
  senderName: string
  statusCallback?: string
}

/** The row a sealed secret belongs to: a sealed value copied into another subscription's row fails to open. */
const aad = (subId: string) => `notification-sms-secret:${subId}`
export const sealSmsSecret = (key: Buffer, subId: string, secret: string) => seal(key, secret, aad(subId))
export const openSmsSecret = (key: Buffer, subId: string, sealed: string) => open(key, sealed, aad(subId))

/**
 * Each facility's provider, from its settings (store/sms.ts) as they are now: a Messages API
 * provider is a URL and credentials over the one guarded fetch; an SMPP provider is a session kept
 * bound (one per facility and configuration: a change of URL or credentials binds afresh), which
 * also carries that facility's replies and receipts (`onInbound`).
 */
export function createSmsProviders(deps: {
  db: Db
  secretKey: Buffer
  publicUrl: string
  fetch: GuardedFetch
  policy: AddressPolicy
  lookup: Lookup
  timeoutMs: number
  onInbound(subId: string, m: SmppInbound): Promise<void>
  onError(err: unknown): void
}) {
  const sessions = new Map<string, { key: string; provider: ReturnType<typeof createSmppProvider> }>()

  function smppOf(s: SmsSettingsRow, secret: string) {
    const key = createHash('sha256').update(`${s.url}|${s.account}|${secret}`).digest('hex')
    const held = sessions.get(s.sub_id)
    if (held?.key === key) return held.provider
    void held?.provider.close()
    const provider = createSmppProvider(
      { url: s.url!, systemId: s.account!, password: secret },
      {
        policy: deps.policy,
        lookup: deps.lookup,
        timeoutMs: deps.timeoutMs,
        onInbound: (m) => deps.onInbound(s.sub_id, m),
        onError: (err) => deps.onError(err),
      },
    )
    sessions.set(s.sub_id, { key, provider })
    return provider
  }

  function resolve(s: SmsSettingsRow | undefined): ResolvedProvider | undefined {
    if (!s || s.provider === 'none' || !s.url || !s.account || !s.secret_sealed || !s.from_number) return undefined
    const secret = openSmsSecret(deps.secretKey, s.sub_id, s.secret_sealed)
    const senderName = s.sender_name ?? 'mailroom'
    if (s.provider === 'smpp') return { provider: smppOf(s, secret), from: s.from_number, senderName }
    return {
      provider: createMessagesApiProvider({ url: s.url, accountSid: s.account, authToken: secret }, deps.fetch),
      from: s.from_number,
      senderName,
      statusCallback: `${deps.publicUrl}/notifications/sms/${encodeURIComponent(s.sub_id)}/status`,
    }
  }

  return {
    async forSub(subId: string): Promise<ResolvedProvider | undefined> {
      return resolve(await findSmsSettings(deps.db, subId))
    },
    /** Binds every SMPP facility's session (replies and receipts come in on it), each on its own. */
    async keepBound(): Promise<number> {
      let bound = 0
      for (const s of await smppSubscriptions(deps.db)) {
        const r = resolve(s)
        if (!r) continue
        try {
          await (r.provider as ReturnType<typeof createSmppProvider>).bind()
          bound++
        } catch (e) {
          deps.onError(e)
        }
      }
      return bound
    },
    async close(): Promise<void> {
      await Promise.all([...sessions.values()].map((s) => s.provider.close()))
      sessions.clear()
    },
  }
}

export type SmsProviders = ReturnType<typeof createSmsProviders>
