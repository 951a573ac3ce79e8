import net from 'node:net'
import { beforeAll, describe, expect, it } from 'vitest'
import { useTestApp } from '../support/use-test-app.js'

/** Issue 14.5: a client trickling bytes cannot hold a socket; tried with real sockets on a listening server. */
describe('slow clients', () => {
  const t = useTestApp({
    HTTP_HEADERS_TIMEOUT_MS: '1000',
    HTTP_REQUEST_TIMEOUT_MS: '2000',
    HTTP_IDLE_TIMEOUT_MS: '3000',
    HTTP_KEEP_ALIVE_TIMEOUT_MS: '500',
  })
  let port: number
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' })
    port = (t.app.server.address() as net.AddressInfo).port
  })

  /**
   * Opens a socket, writes `head` at once, then one byte of `trickle` every 200 ms; resolves with
   * whether the server closed it and what it answered. The test gives up after `giveUpMs`, many
   * times the deadlines set above and far below Node's and Fastify's own (60 s, 72 s), so a socket
   * the server closed was closed by a deadline of ours. Nothing here times an answer (issue 24):
   * which deadline closed it shows in the answer (408 for a request, nothing for an idle socket).
   */
  function trickle(
    head: string,
    drip: string,
    giveUpMs = 15_000,
  ): Promise<{ closedByServer: boolean; received: string }> {
    return new Promise((resolve) => {
      let received = ''
      let i = 0
      const socket = net.connect(port, '127.0.0.1', () => socket.write(head))
      const timer = setInterval(() => {
        if (drip && !socket.destroyed && !socket.writableEnded) socket.write(drip[i++ % drip.length]!)
      }, 200)
      const done = (closedByServer: boolean) => {
        clearInterval(timer)
        clearTimeout(giveUp)
        socket.destroy()
        resolve({ closedByServer, received })
      }
      const giveUp = setTimeout(() => done(false), giveUpMs)
      socket.on('data', (d) => (received += d.toString()))
      socket.on('error', () => {})
      socket.on('close', () => done(true))
    })
  }

  it('closes a socket whose headers arrive 5 bytes a second within the headers deadline', async () => {
    const { closedByServer, received } = await trickle(
      'GET /healthz HTTP/1.1\r\nHost: x\r\n',
      'X-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\r\n',
    )
    // Closed while its headers were still arriving (all of them take 16 s), with a 408.
    expect(closedByServer).toBe(true)
    expect(received).toMatch(/^HTTP\/1\.1 408/)
  })

  it('closes a socket whose body arrives 5 bytes a second within the request deadline', async () => {
    const { auth } = await t.newClient()
    const body = `[${'"x",'.repeat(200)}"x"]`
    const { closedByServer, received } = await trickle(
      `POST /api/v1/carriers HTTP/1.1\r\nHost: x\r\nAuthorization: ${auth.authorization}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`,
      body,
    )
    expect(closedByServer).toBe(true)
    expect(received).toMatch(/^HTTP\/1\.1 408/)
  })

  it('closes an idle kept-alive connection after the keep-alive deadline', async () => {
    const { closedByServer, received } = await trickle('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n', '')
    // One answer, then the server closed the idle connection without another.
    expect(received.match(/HTTP\/1\.1 /g)).toEqual(['HTTP/1.1 '])
    expect(received).toMatch(/^HTTP\/1\.1 200/)
    expect(closedByServer).toBe(true)
  })
})
