import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import smpp, { type PDU, type Session } from 'smpp'

/** A request the Messages API server received. */
export interface ApiRequest {
  path: string
  authorization: string | undefined
  form: Record<string, string>
}

/**
 * An HTTP server speaking the Twilio-style Messages API: POST /Accounts/{sid}/Messages.json,
 * form-encoded, Basic auth; 201 with a sid, or the answers queued with `answerNext` (4xx errors
 * with Twilio's JSON error body, 429 rate limits, 500s).
 */
export class TestMessagesApi {
  readonly requests: ApiRequest[] = []
  private readonly answers: Array<{ status: number; body: unknown }> = []
  private server: Server | undefined
  private n = 0
  url = ''
  /** Awaited before each answer: a test holds a request in flight (the sender may be killed meanwhile). */
  hold: (() => Promise<void>) | undefined

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      let raw = ''
      req.on('data', (c: Buffer) => (raw += c.toString('utf8')))
      req.on('end', () => void answer())
      const answer = async () => {
        const form = Object.fromEntries(new URLSearchParams(raw))
        this.requests.push({ path: req.url ?? '', authorization: req.headers.authorization, form })
        await this.hold?.()
        const next = this.answers.shift() ?? {
          status: 201,
          body: {
            sid: `SM${String(++this.n).padStart(32, '0')}`,
            status: 'queued',
            to: form.To,
            from: form.From,
            body: form.Body,
          },
        }
        res.writeHead(next.status, {
          'content-type': 'application/json',
          ...(next.status === 429 ? { 'retry-after': '1' } : {}),
        })
        res.end(JSON.stringify(next.body))
      }
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/2010-04-01`
  }

  answerNext(status: number, body: unknown): void {
    this.answers.push({ status, body })
  }

  clear(): void {
    this.requests.length = 0
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections()
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }
}

/** A submit_sm the SMSC received. */
export interface Submitted {
  from: string
  to: string
  body: string
  messageId: string
}

/**
 * An SMSC: the `smpp` library's server mode. Accepts a transceiver bind with the given credentials,
 * answers submit_sm with a message_id (or the command_status queued with `refuseNext`), and sends
 * deliver_sm on the bound session: a reply from a phone, or a delivery receipt.
 */
export class TestSmsc {
  readonly submitted: Submitted[] = []
  /** The destination of every submit_sm received, answered or not yet (a held one included). */
  readonly arrived: string[] = []
  /** Awaited before a submit_sm is answered: a test holds it in flight (the ESME may be killed meanwhile). */
  hold: (() => Promise<void>) | undefined
  private readonly statuses: number[] = []
  private server: ReturnType<typeof smpp.createServer> | undefined
  private session: Session | undefined
  private n = 0
  url = ''

  constructor(private readonly creds = { systemId: 'mailroom', password: 'secret12' }) {}

  async start(): Promise<void> {
    this.server = smpp.createServer((session) => {
      session.on('error', () => {})
      session.on('bind_transceiver', (pdu: PDU) => {
        const ok = pdu.system_id === this.creds.systemId && pdu.password === this.creds.password
        session.send(pdu.response(ok ? {} : { command_status: 0x0d }))
        if (ok) this.session = session
        else session.close()
      })
      const answer = (pdu: PDU) => {
        const status = this.statuses.shift() ?? 0
        if (status !== 0) {
          session.send(pdu.response({ command_status: status }))
          return
        }
        const messageId = `msg${++this.n}`
        const text = (v: unknown) =>
          typeof v === 'string' ? v : ((v as { message?: string } | undefined)?.message ?? '')
        this.submitted.push({
          from: String(pdu.source_addr),
          to: String(pdu.destination_addr),
          body: text(pdu.short_message) || text(pdu.message_payload),
          messageId,
        })
        session.send(pdu.response({ message_id: messageId }))
      }
      session.on('submit_sm', (pdu: PDU) => {
        this.arrived.push(String(pdu.destination_addr))
        const hold = this.hold?.()
        if (hold) void hold.then(() => answer(pdu))
        else answer(pdu)
      })
      session.on('enquire_link', (pdu: PDU) => session.send(pdu.response()))
      session.on('unbind', (pdu: PDU) => {
        session.send(pdu.response())
        session.close()
      })
    })
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', () => resolve()))
    this.url = `smpp://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  refuseNext(commandStatus: number): void {
    this.statuses.push(commandStatus)
  }

  private deliver(params: Record<string, unknown>): Promise<number> {
    const s = this.session
    if (!s) throw new Error('no bound session')
    return new Promise((resolve) => s.deliver_sm(params, (pdu) => resolve(pdu.command_status)))
  }

  /**
   * A text from a phone (deliver_sm, esm_class 0; ton 1: an international number, without its '+');
   * resolves with the ESME's command_status. `extra`: more fields or TLVs (an SMSC's receipted_message_id).
   * Delivering the same again is what an SMSC does when it did not get (or was refused) the answer.
   */
  reply(from: string, to: string, body: string, sourceTon = 0, extra: Record<string, unknown> = {}): Promise<number> {
    return this.deliver({
      source_addr: from,
      source_addr_ton: sourceTon,
      destination_addr: to,
      short_message: body,
      ...extra,
    })
  }

  /** An SMSC delivery receipt (esm_class 0x04, SMPP 3.4 Appendix B text). */
  receipt(messageId: string, stat: 'DELIVRD' | 'UNDELIV' | 'REJECTD'): Promise<number> {
    return this.deliver({
      source_addr: '',
      destination_addr: '',
      esm_class: 0x04,
      short_message: `id:${messageId} sub:001 dlvrd:${stat === 'DELIVRD' ? '001' : '000'} submit date:2611271200 done date:2611271201 stat:${stat} err:000 text:`,
    })
  }

  get bound(): boolean {
    return this.session !== undefined
  }

  async close(): Promise<void> {
    for (const s of this.server?.sessions ?? []) s.destroy()
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()))
  }
}
