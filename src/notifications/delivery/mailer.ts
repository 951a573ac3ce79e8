import { Readable } from 'node:stream'
import nodemailer from 'nodemailer'
import MailComposer from 'nodemailer/lib/mail-composer'

/** One email as the worker hands it to the transport. */
export interface MailMessage {
  to: string
  subject: string
  text: string
  html: string
  /** Derived from the notification id: a resend carries the same one, so a mail client can see it is the same message. */
  messageId: string
  headers: Record<string, string>
  attachments: Array<{ filename: string; content: Buffer; contentType: string; cid: string }>
}

export interface Mailer {
  /**
   * Resolves once the SMTP server accepted the message; rejects with the server's or the
   * connection's error, or with UnconfirmedSend when the server got the whole message and its
   * answer never came.
   */
  send(message: MailMessage): Promise<void>
  close(): void
}

/**
 * The whole message was handed to the server, then the connection timed out or broke before its
 * answer: the server may have accepted it. RFC 5321 §4.5.3.2.6 warns that giving up here makes
 * duplicates; the worker does not send it again.
 */
export class UnconfirmedSend extends Error {}

/**
 * SMTP through nodemailer's pooled transport: connections kept open and reused, so a batch of
 * notifications does not pay a TCP and TLS handshake (and an AUTH) per email. `connections` is the
 * worker's concurrency: a send never waits in the pool for a connection, so its lease, taken just
 * before, covers the send itself. smtp:// upgrades with STARTTLS when the server offers it;
 * smtps:// is TLS from the first byte.
 */
export function createSmtpMailer(opts: { url: string; from: string; timeoutMs: number; connections: number }): Mailer {
  const transport = nodemailer.createTransport({
    url: opts.url,
    pool: true,
    maxConnections: opts.connections,
    connectionTimeout: opts.timeoutMs,
    greetingTimeout: opts.timeoutMs,
    socketTimeout: opts.timeoutMs,
  } as Parameters<typeof nodemailer.createTransport>[0])
  return {
    async send(m) {
      const node = new MailComposer({
        from: opts.from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        html: m.html,
        messageId: m.messageId,
        headers: m.headers,
        attachments: m.attachments,
      }).compile()
      const raw = await node.build()
      // Built here and streamed, so that the end of the stream says the server has the whole message.
      let handedOver = false
      const stream = Readable.from([raw]).on('end', () => (handedOver = true))
      try {
        await transport.sendMail({ envelope: node.getEnvelope(), raw: stream })
      } catch (e) {
        const answered = typeof (e as { responseCode?: unknown }).responseCode === 'number'
        if (handedOver && !answered)
          throw new UnconfirmedSend(
            `the SMTP server took the whole message but did not answer (${(e as Error).message}); it may have been delivered, so it is not sent again`,
          )
        throw e
      }
    },
    close: () => transport.close(),
  }
}
