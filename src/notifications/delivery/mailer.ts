import nodemailer from 'nodemailer'

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
  /** Resolves once the SMTP server accepted the message; rejects with the server's or the connection's error. */
  send(message: MailMessage): Promise<void>
  close(): void
}

/**
 * SMTP through nodemailer's pooled transport: a few connections kept open and reused, so a batch
 * of notifications does not pay a TCP and TLS handshake (and an AUTH) per email. smtp:// upgrades
 * with STARTTLS when the server offers it; smtps:// is TLS from the first byte.
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
      await transport.sendMail({
        from: opts.from,
        to: m.to,
        subject: m.subject,
        text: m.text,
        html: m.html,
        messageId: m.messageId,
        headers: m.headers,
        attachments: m.attachments,
      })
    },
    close: () => transport.close(),
  }
}
