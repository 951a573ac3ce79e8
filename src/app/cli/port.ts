import { createServer } from 'node:net'

/** PORT/HOST name an address another process holds: a configuration problem (exit 78), said in one line. */
export class PortInUseError extends Error {
  constructor(host: string, port: number) {
    super(`${host}:${port} is already in use (PORT=${port}, HOST=${host}): stop what holds it or choose another PORT`)
    this.name = 'PortInUseError'
  }
}

/**
 * Binds the address for a moment and lets it go, before anything touches the disk: a second
 * `npm start` fails here instead of after creating (or locking) a data directory. Another process can
 * still take the port in the seconds before the service listens; that listen then fails with the
 * same error (see `listenOrExplain`).
 */
export async function ensurePortFree(host: string, port: number): Promise<void> {
  if (port === 0) return
  await new Promise<void>((resolve, reject) => {
    const probe = createServer()
    probe.once('error', (e: NodeJS.ErrnoException) =>
      reject(e.code === 'EADDRINUSE' ? new PortInUseError(host, port) : e),
    )
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve()))
  })
}

/** Runs `listen`, turning the address-in-use failure into the one-line PortInUseError. */
export async function listenOrExplain<T>(host: string, port: number, listen: () => Promise<T>): Promise<T> {
  try {
    return await listen()
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new PortInUseError(host, port)
    throw e
  }
}
