import type { Config } from '../config.js'
import { decideHeld, HELD_KINDS, listHeld, type HeldKind, type HeldSummary } from '../restore/held-work.js'
import { openDatabase } from '../../platform/db/database.js'
import { migrateToLatest } from '../../platform/db/migrate.js'
import { askControlSocket, controlSocketPath } from '../../platform/db/control-socket.js'
import { CommandError, parse, UsageError } from './args.js'
import { oneLine } from './backup.js'

/**
 * `mailroom held [--json]`, `mailroom held resend|drop emails|webhooks`: the work a restore held
 * back, and the operator's decision on each kind (docs/backup.md). On the embedded database a
 * running service is asked on its control socket (the database lives inside it); otherwise the
 * database is opened here.
 */
export async function heldCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values, positionals } = parse(args, { json: { type: 'boolean', default: false } })
  const [action = 'list', kind, ...extra] = positionals
  if (extra.length > 0) throw new UsageError('held [list] | held resend|drop emails|webhooks')
  if (action === 'list') {
    if (kind !== undefined) throw new UsageError('held list takes no kind')
    const summary = await run(config, 'GET', '/held', (db) => listHeld(db))
    process.stdout.write(values.json ? `${JSON.stringify(summary)}\n` : describe(summary))
    return
  }
  if (action !== 'resend' && action !== 'drop') throw new UsageError(`unknown held command ${action}`)
  if (!kind || !(HELD_KINDS as readonly string[]).includes(kind))
    throw new UsageError(`held ${action} needs a kind: ${HELD_KINDS.join(' or ')}`)
  const { decided } = await run(config, 'POST', `/held/${kind}/${action}`, async (db) => ({
    decided: await decideHeld(db, kind as HeldKind, action, new Date()),
  }))
  process.stdout.write(
    values.json
      ? `${JSON.stringify({ kind, action, decided })}\n`
      : `${kind}: ${decided} held ${action === 'resend' ? 'released, sent now' : 'dropped, never sent'}\n`,
  )
}

async function run<T>(
  config: Readonly<Config>,
  method: 'GET' | 'POST',
  url: string,
  direct: (db: Parameters<typeof listHeld>[0]) => Promise<T>,
): Promise<T> {
  if (config.database.kind === 'pglite') {
    const asked = await askControlSocket(controlSocketPath(config.database.dir), method, url).catch(oneLine)
    if (asked) {
      if (asked.status !== 200) throw new CommandError(`the running service answered: ${asked.body.toString()}`)
      return JSON.parse(asked.body.toString()) as T
    }
  }
  const database = await openDatabase(config.database)
  try {
    await migrateToLatest(database.db)
    return await direct(database.db)
  } finally {
    await database.close()
  }
}

function describe(s: HeldSummary): string {
  const lines = [
    s.restore
      ? `restored ${s.restore.restoredAt}${s.restore.snapshotAt ? ` from a backup taken ${s.restore.snapshotAt}` : ''}; held what was pending for more than ${s.restore.holdAfterMinutes} min`
      : 'this database was never restored',
  ]
  for (const k of HELD_KINDS)
    lines.push(`  ${k}: ${s.held[k].count} held${s.held[k].oldest ? `, oldest from ${s.held[k].oldest}` : ''}`)
  if (HELD_KINDS.some((k) => s.held[k].count > 0))
    lines.push('decide with `mailroom held resend emails|webhooks` or `mailroom held drop emails|webhooks`')
  return `${lines.join('\n')}\n`
}
