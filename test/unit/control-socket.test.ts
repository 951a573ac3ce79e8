import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, expect, it } from 'vitest'
import { askControlSocket, ControlSocketError, serveControlSocket } from '../../src/platform/db/control-socket.js'

// The control socket's edges: only its owner may connect, and a command never hangs on a service
// that accepted and stopped answering.
const root = mkdtempSync(path.join(tmpdir(), 'mailroom-sock-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

it('is made 0600, answers, and gives up on a service that stops answering, in one line', async () => {
  const file = path.join(root, 'db.sock')
  const stop = await serveControlSocket(
    file,
    (_method, url) =>
      url === '/hang' ? new Promise(() => {}) : Promise.resolve({ status: 200, type: 'text/plain', body: 'ok' }),
    () => {},
  )
  try {
    expect(statSync(file).mode & 0o777).toBe(0o600)
    const ok = await askControlSocket(file, 'GET', '/')
    expect([ok?.status, ok?.body.toString()]).toEqual([200, 'ok'])
    const hung = askControlSocket(file, 'GET', '/hang', 300)
    await expect(hung).rejects.toThrow(ControlSocketError)
    await expect(hung).rejects.toThrow(`${file}: the running service did not answer for 0.3 s`)
  } finally {
    await stop!()
  }
})
