import type { DatabaseHandle } from '../../platform/db/database.js'
import { controlSocketPath, serveControlSocket, type ControlAnswer } from '../../platform/db/control-socket.js'
import type { Clock } from '../../platform/kit/clock.js'
import { decideHeld, HELD_KINDS, listHeld, type HeldKind } from './held-work.js'

const json = (status: number, value: unknown): ControlAnswer => ({
  status,
  type: 'application/json',
  body: JSON.stringify(value),
})

/**
 * What `mailroom serve` answers on the embedded database's control socket (platform/db/control-socket.ts):
 * a backup's snapshot, and the held work of a restore and the operator's decision on it.
 * `nudge`: held work was released, the workers look now.
 */
export async function startControlSocket(
  deps: { dbDir: string; database: DatabaseHandle; clock: Clock; nudge: () => void },
  onError: (err: unknown) => void,
): Promise<(() => Promise<void>) | undefined> {
  const { database, clock } = deps
  // The service runs without it rather than not at all (a file system that refuses sockets).
  return serveControlSocket(
    controlSocketPath(deps.dbDir),
    async (method, url) => {
      if (method === 'GET' && url === '/backup') {
        const dump = await database.dumpDataDir!()
        return { status: 200, type: 'application/gzip', body: Buffer.from(await dump.arrayBuffer()) }
      }
      if (method === 'GET' && url === '/held') return json(200, await listHeld(database.db))
      const m = /^\/held\/([a-z]+)\/(resend|drop)$/.exec(url)
      if (method === 'POST' && m && (HELD_KINDS as readonly string[]).includes(m[1]!)) {
        const decided = await decideHeld(database.db, m[1] as HeldKind, m[2] as 'resend' | 'drop', clock.now())
        if (m[2] === 'resend') deps.nudge()
        return json(200, { decided })
      }
      return json(404, { error: `no ${method} ${url}` })
    },
    onError,
  ).catch((err: unknown) => {
    onError(err)
    return undefined
  })
}
