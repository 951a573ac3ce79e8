import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface ReceivedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: string
  at: number
}

export interface Answer {
  status: number
  headers?: Record<string, string>
  body?: string
}

/** 'hold' keeps the request open until `release()` (or the client gives up). */
export type Responder = (req: ReceivedRequest) => Answer | 'hold'

/**
 * A real HTTP receiver on 127.0.0.1 whose answers a test changes mid-flight. Requests to /token
 * are the OAuth2 token endpoint (answered by `tokenResponder`), everything else the webhook.
 */
export class Receiver {
  readonly requests: ReceivedRequest[] = []
  readonly tokenRequests: ReceivedRequest[] = []
  respond: Responder = () => ({ status: 200, body: 'ok' })
  /** Per-path answers (the path without its query), tried before `respond`. */
  readonly routes = new Map<string, Responder>()
  tokenResponder: Responder = () => ({
    status: 200,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ access_token: 'tok-1', token_type: 'Bearer', expires_in: 3600 }),
  })
  #held: ServerResponse[] = []
  #waiters: Array<() => void> = []
  #server: Server | undefined
  port = 0

  async start(): Promise<this> {
    this.#server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const rec: ReceivedRequest = {
          method: req.method ?? '',
          path: req.url ?? '',
          headers: req.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          at: Date.now(),
        }
        const isToken = rec.path.startsWith('/token')
        ;(isToken ? this.tokenRequests : this.requests).push(rec)
        const answer = (isToken ? this.tokenResponder : (this.routes.get(rec.path.split('?')[0]!) ?? this.respond))(rec)
        for (const w of this.#waiters.splice(0)) w()
        if (answer === 'hold') {
          this.#held.push(res)
          return
        }
        res.writeHead(answer.status, answer.headers ?? {})
        res.end(answer.body ?? '')
      })
    })
    // Tests drop held requests by killing the sender; keep the receiver quiet about it.
    this.#server.on('clientError', () => {})
    await new Promise<void>((resolve) => this.#server!.listen(0, '127.0.0.1', resolve))
    this.port = (this.#server.address() as AddressInfo).port
    return this
  }

  /** The webhook requests that came to `path`. */
  at(path: string): ReceivedRequest[] {
    return this.requests.filter((r) => r.path.split('?')[0] === path)
  }

  url(path = '/hook'): string {
    return `http://127.0.0.1:${this.port}${path}`
  }

  /** Resolves once `count` webhook requests arrived in total. */
  async waitFor(count: number, timeoutMs = 20_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (this.requests.length < count) {
      if (Date.now() > deadline) throw new Error(`receiver got ${this.requests.length} requests, expected ${count}`)
      await new Promise<void>((resolve) => {
        this.#waiters.push(resolve)
        setTimeout(resolve, 100)
      })
    }
  }

  /** Answers every held request. */
  release(answer: Answer = { status: 200 }): void {
    for (const res of this.#held.splice(0)) {
      if (res.destroyed) continue
      res.writeHead(answer.status, answer.headers ?? {})
      res.end(answer.body ?? '')
    }
  }

  reset(): void {
    this.requests.length = 0
    this.tokenRequests.length = 0
    this.respond = () => ({ status: 200, body: 'ok' })
  }

  async close(): Promise<void> {
    for (const res of this.#held.splice(0)) res.destroy()
    this.#server?.closeAllConnections()
    await new Promise<void>((resolve) => this.#server?.close(() => resolve()) ?? resolve())
  }
}
