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

/** The control socket could not be asked (permission, no answer): a one-line message for the operator. */
export class ControlSocketError extends Error {}

/**
 * How long an ask may go without a byte from the service. Long: a snapshot of a big database is
 * taken before its first byte is sent.
 */
const ASK_IDLE_TIMEOUT_MS = 10 * 60_000

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
  // Made 0600 from the start (umask while it is bound): a chmod after listen would leave a moment in
  // which anyone could connect.
  const umask = process.umask(0o177)
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(file, () => resolve())
    })
  } finally {
    process.umask(umask)
  }
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
  idleTimeoutMs = ASK_IDLE_TIMEOUT_MS,
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
      e.code === 'ENOENT' || e.code === 'ECONNREFUSED' || e.code === 'ENOTSOCK'
        ? resolve(undefined)
        : reject(
            e.code === 'EACCES'
              ? new ControlSocketError(`${file}: permission denied; run the command as the user the service runs as`)
              : e,
          ),
    )
    // A service that accepted but hangs (stopped with SIGSTOP, stuck) must not hang the command forever.
    req.setTimeout(idleTimeoutMs, () =>
      req.destroy(new ControlSocketError(`${file}: the running service did not answer for ${idleTimeoutMs / 1000} s`)),
    )
    req.end()
  })
}
