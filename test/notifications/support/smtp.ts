import { afterAll, beforeAll } from 'vitest'
import { simpleParser, type ParsedMail } from 'mailparser'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

export interface ReceivedMail {
  mail: ParsedMail
  receivedAt: number
  messageId: string
}

/**
 * A real SMTP server on a free local port that keeps what it accepts (parsed with mailparser).
 * `hold` (when set) is awaited before a message is accepted: a test can keep a send in flight.
 * `overlaps` counts messages whose DATA arrived while the same Message-ID was still held: the same
 * email sent by two workers at once.
 */
export class TestSmtpServer {
  readonly received: ReceivedMail[] = []
  hold: ((mail: ParsedMail) => Promise<void>) | undefined
  overlaps = 0
  #held = new Set<string>()
  /** Messages whose DATA arrived (accepted or still held). */
  dataStarted = 0
  #server: SMTPServer | undefined
  #waiters: Array<() => void> = []

  async start(): Promise<this> {
    this.#server = new SMTPServer({
      authOptional: true,
      disabledCommands: ['STARTTLS'],
      logger: false,
      closeTimeout: 500,
      onAuth: (_auth, _session, cb) => cb(null, { user: 'test' }),
      onData: (stream, _session, cb) => {
        this.dataStarted++
        simpleParser(stream)
          .then(async (mail) => {
            const id = mail.messageId ?? ''
            if (this.#held.has(id)) this.overlaps++
            this.#held.add(id)
            try {
              if (this.hold) await this.hold(mail)
            } finally {
              this.#held.delete(id)
            }
            this.received.push({ mail, receivedAt: Date.now(), messageId: mail.messageId ?? '' })
            for (const w of this.#waiters.splice(0)) w()
            cb()
          })
          .catch((e: Error) => cb(e))
      },
    })
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve))
    return this
  }

  get url(): string {
    const { port } = (this.#server as unknown as { server: { address(): AddressInfo } }).server.address()
    return `smtp://127.0.0.1:${port}`
  }

  /** Resolves once `count` messages were accepted (or rejects after `timeoutMs`). */
  async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedMail[]> {
    const deadline = Date.now() + timeoutMs
    while (this.received.length < count) {
      if (Date.now() > deadline) throw new Error(`${this.received.length} of ${count} emails after ${timeoutMs} ms`)
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 50)
        this.#waiters.push(() => {
          clearTimeout(t)
          resolve()
        })
      })
    }
    return this.received
  }

  clear(): void {
    this.received.length = 0
  }

  async close(): Promise<void> {
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve())
  }
}

/**
 * A TestSmtpServer for the whole file, and the app env that points at it (SMTP_URL is set once the
 * server listens, before the app of a later `useTestApp(env)` is built).
 */
export function useSmtpServer(extra: Record<string, string> = {}): {
  smtp: TestSmtpServer
  env: Record<string, string>
} {
  const smtp = new TestSmtpServer()
  const env: Record<string, string> = { MAILROOM_PUBLIC_URL: 'https://mailroom.example.test', ...extra }
  beforeAll(async () => {
    await smtp.start()
    env.SMTP_URL = smtp.url
  })
  afterAll(() => smtp.close())
  return { smtp, env }
}
