import { createHash } from 'node:crypto'
import smpp, { type PDU, type Session } from 'smpp'
import { checkLiteralHost, guardedLookup, type AddressPolicy, type Lookup } from '../../platform/http/outbound-guard.js'
import { SmsRefused, SmsThrottled, UnconfirmedText, type SmsProvider } from './sms.js'

export interface SmppConfig {
  /** smpp://host:2775 or ssmpp://host:3550 (TLS). */
  url: string
  systemId: string
  password: string
}

/** What arrives on a bound session: a reply from a phone, or a delivery receipt of a text we sent. */
export type SmppInbound =
  | {
      kind: 'reply'
      from: string
      body: string
      /** The message's identity across an SMSC's re-deliveries (inboundIdOf). */
      messageId: string
      /** 'smsc': an id the SMSC gave it; 'content': a hash of what it says, the same for a later identical message. */
      identity: 'smsc' | 'content'
    }
  | { kind: 'receipt'; messageId: string; status: 'delivered' | 'undelivered' | 'accepted'; error?: string }

// SMPP 3.4 §5.1.3 command_status values that mean "not this message, ever" or "slow down".
const REFUSED = new Set([0x0a, 0x0b, 0x0c, 0x33, 0x48, 0x49, 0x50, 0x51])
const THROTTLED = new Set([0x14, 0x58])
/** §5.2.12 esm_class: bits 2-5 = 0001, an SMSC delivery receipt. */
const RECEIPT = 0x04

/** Appendix B's receipt text: "id:IIII sub:SSS dlvrd:DDD submit date:... done date:... stat:DDDDDDD err:E". */
function receiptOf(pdu: PDU, text: string): SmppInbound | undefined {
  const id = (typeof pdu.receipted_message_id === 'string' && pdu.receipted_message_id) || /\bid:(\S+)/i.exec(text)?.[1]
  if (!id) return undefined
  const stat = /\bstat:(\S+)/i.exec(text)?.[1]?.toUpperCase() ?? ''
  const err = /\berr:(\S+)/i.exec(text)?.[1]
  const status = stat === 'DELIVRD' ? 'delivered' : ['ACCEPTD', 'ENROUTE'].includes(stat) ? 'accepted' : 'undelivered'
  return {
    messageId: id,
    kind: 'receipt',
    status,
    ...(status === 'undelivered' ? { error: `${stat}${err ? ` err:${err}` : ''}` } : {}),
  }
}

const fieldText = (v: unknown): string =>
  v instanceof Date ? v.toISOString() : typeof v === 'string' || typeof v === 'number' ? String(v) : ''

/**
 * A reply's identity, the same when the SMSC delivers it again (it does when our deliver_sm_resp
 * was lost or refused): the receipted_message_id TLV when the SMSC sets one; else a hash of the
 * source, destination and text with what the SMSC stamped on it (its times and the handset's
 * user_message_reference, when present): two identical messages may then share it (docs/sms.md).
 */
function inboundIdOf(pdu: PDU, from: string, body: string): { messageId: string; identity: 'smsc' | 'content' } {
  const smscId = fieldText(pdu.receipted_message_id)
  // With its number: an SMSC that stamps a constant id on every reply would otherwise make one
  // number's STOP look like another's re-delivery.
  if (smscId) return { messageId: `smpp:${from}:${smscId}`, identity: 'smsc' }
  const parts = [
    from,
    pdu.destination_addr,
    body,
    pdu.schedule_delivery_time,
    pdu.validity_period,
    pdu.user_message_reference,
  ]
  const hash = createHash('sha256').update(parts.map(fieldText).join('\u0000')).digest('hex')
  return { messageId: `smpp-content:${hash}`, identity: 'content' }
}

/** §5.2.5 type_of_number 1 (international): the SMSC leaves the '+' of E.164 out. */
function sourceOf(pdu: PDU): string {
  const addr = typeof pdu.source_addr === 'string' ? pdu.source_addr : ''
  return pdu.source_addr_ton === 1 && /^[0-9]+$/.test(addr) ? `+${addr}` : addr
}

const textOf = (v: unknown): string =>
  typeof v === 'string'
    ? v
    : v && typeof (v as { message?: unknown }).message === 'string'
      ? (v as { message: string }).message
      : ''

/**
 * A bound transceiver session to one facility's SMSC (the kept `smpp` library): submit_sm out,
 * deliver_sm in (replies and receipts, answered with deliver_sm_resp only after `onInbound`
 * resolved, so an SMSC re-delivers what we failed to record). The address guard of webhooks is
 * applied at connect time (a literal IP checked first, a name through the guarded lookup). A
 * session that closes is opened again at the next send or keep-alive.
 */
export function createSmppProvider(
  cfg: SmppConfig,
  opts: {
    policy: AddressPolicy
    lookup: Lookup
    timeoutMs: number
    onInbound: (m: SmppInbound) => Promise<void>
    onError: (err: unknown) => void
  },
): SmsProvider & { bind(): Promise<void>; close(): Promise<void> } {
  let bound: Promise<Session> | undefined

  function open(): Promise<Session> {
    const url = new URL(cfg.url)
    checkLiteralHost(opts.policy, url)
    return new Promise<Session>((resolve, reject) => {
      // The host, port and TLS of the URL just checked, never the URL string: the library reads a
      // string with the legacy url.parse, which can see another host in the same text.
      const tls = url.protocol === 'ssmpp:'
      const session = smpp.connect({
        host: url.hostname.replace(/^\[(.*)\]$/, '$1'),
        port: url.port ? Number(url.port) : tls ? 3550 : 2775,
        tls,
        lookup: guardedLookup(opts.policy, opts.lookup),
        auto_enquire_link_period: 30_000,
      })
      const timer = setTimeout(() => {
        session.destroy()
        reject(new Error(`SMPP bind to ${url.host} timed out`))
      }, opts.timeoutMs)
      session.on('error', (e: unknown) => {
        clearTimeout(timer)
        bound = undefined
        reject(e instanceof Error ? e : new Error(String(e)))
        opts.onError(e)
      })
      session.on('close', () => {
        bound = undefined
      })
      session.on('deliver_sm', (pdu: PDU) => {
        const body = textOf(pdu.short_message) || textOf(pdu.message_payload)
        const esm = typeof pdu.esm_class === 'number' ? pdu.esm_class : 0
        const m: SmppInbound | undefined =
          (esm & 0x3c) === RECEIPT
            ? receiptOf(pdu, body)
            : { kind: 'reply', from: sourceOf(pdu), body, ...inboundIdOf(pdu, sourceOf(pdu), body) }
        const done = m ? opts.onInbound(m) : Promise.resolve()
        done.then(
          () => session.send(pdu.response()),
          (e: unknown) => {
            // ESME_RX_T_APPN (§5.1.3): the SMSC keeps it and tries again later.
            session.send(pdu.response({ command_status: 0x64 }))
            opts.onError(e)
          },
        )
      })
      session.bind_transceiver({ system_id: cfg.systemId, password: cfg.password }, (pdu) => {
        clearTimeout(timer)
        if (pdu.command_status === 0) resolve(session)
        else {
          session.close()
          // Not the text's fault (credentials being fixed, an SMSC restarting): retried with the back-off.
          reject(new Error(`the SMSC refused the bind (command_status ${pdu.command_status})`))
        }
      })
    })
  }

  const session = () => {
    bound ??= open().catch((e: unknown) => {
      bound = undefined
      throw e
    })
    return bound
  }

  return {
    bind: async () => {
      await session()
    },
    async send(from, m) {
      const s = await session()
      return new Promise((resolve, reject) => {
        // Sent: from here an unanswered submit may have been taken (UnconfirmedText).
        const timer = setTimeout(
          () => reject(new UnconfirmedText('the SMSC did not answer submit_sm in time; the text may have been sent')),
          opts.timeoutMs,
        )
        // One submit per text: a body past one segment goes whole in message_payload (§5.3.2.32)
        // rather than as concatenated parts, so the SMSC splits it and one message_id covers it.
        const long = m.body.length > 160 || /[^\x20-\x7e\n\r]/.test(m.body)
        const written = s.submit_sm(
          {
            source_addr: from,
            destination_addr: m.to,
            registered_delivery: 1,
            ...(long ? { message_payload: m.body } : { short_message: m.body }),
          },
          (pdu) => {
            clearTimeout(timer)
            if (pdu.command_status === 0) resolve({ messageId: String(pdu.message_id) })
            else if (THROTTLED.has(pdu.command_status))
              reject(new SmsThrottled(`the SMSC is throttling (command_status ${pdu.command_status})`))
            else if (REFUSED.has(pdu.command_status))
              reject(new SmsRefused(`the SMSC refused the text (command_status ${pdu.command_status})`))
            else reject(new Error(`the SMSC failed the submit (command_status ${pdu.command_status})`))
          },
        )
        if (!written) {
          // Nothing left: the session is gone; the next attempt binds afresh.
          clearTimeout(timer)
          bound = undefined
          reject(new Error('the SMPP session closed before the submit'))
        }
      })
    },
    async close() {
      const s = await bound?.catch(() => undefined)
      bound = undefined
      if (s) await new Promise<void>((resolve) => s.close(() => resolve()))
    },
  }
}
