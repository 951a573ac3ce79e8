import { chmodSync, rmSync } from 'node:fs'
import { createServer, request, type IncomingMessage } from 'node:http'
import path from 'node:path'

/**
 * The embedded database's control socket: a local (Unix domain) socket beside the data directory
 * on which the one process that holds the database answers the commands that need it while it
 * runs (`mailroom backup`, `mailroom held`). PGlite lives inside that process, so another process
 * cannot read it: it asks. Access is the file's: mode 0600, in the directory of the database itself,
 * so whoever may use it may read the data directory anyway. Plain HTTP over the socket.
 */
export function controlSocketPath(dbDir: string): string {
  return `${path.resolve(dbDir)}.sock`
}

/** Linux refuses socket paths over 107 bytes (macOS: 103). */
const MAX_SOCKET_PATH = 100

export interface ControlAnswer {
  status: number
  type: string
  body: Buffer | string
}

export type ControlHandler = (method: string, url: string) => Promise<ControlAnswer>

/**
 * Serves `handle` on the socket; resolves to its stop. Undefined when the path is too long for a
 * socket (then the commands explain that the service must be stopped). A socket file left by a
 * process that died is replaced: the caller holds the data directory's lock, so it is nobody's.
 */
export async function serveControlSocket(
  file: string,
  handle: ControlHandler,
  onError: (err: unknown) => void,
): Promise<(() => Promise<void>) | undefined> {
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH) return undefined
  rmSync(file, { force: true })
  const server = createServer((req, res) => {
    handle(req.method ?? 'GET', req.url ?? '/').then(
      (a) => {
        res.writeHead(a.status, { 'content-type': a.type })
        res.end(a.body)
      },
      (err: unknown) => {
        onError(err)
        res.writeHead(500, { 'content-type': 'text/plain' })
        res.end(err instanceof Error ? err.message : String(err))
      },
    )
  })
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(file, () => resolve())
  })
  chmodSync(file, 0o600)
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      server.closeAllConnections()
    })
}

/**
 * Asks the process serving `file`. Undefined when nothing answers there (no socket, or one left by
 * a process that died): the caller may then open the database itself.
 */
export async function askControlSocket(
  file: string,
  method: 'GET' | 'POST',
  url: string,
): Promise<{ status: number; body: Buffer } | undefined> {
  if (Buffer.byteLength(file) > MAX_SOCKET_PATH) return undefined
  return new Promise((resolve, reject) => {
    const req = request({ socketPath: file, method, path: url }, (res: IncomingMessage) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }))
      res.on('error', reject)
    })
    req.on('error', (e: NodeJS.ErrnoException) =>
      e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'ENOTSOCK' ? resolve(undefined) : reject(e),
    )
    req.end()
  })
}
