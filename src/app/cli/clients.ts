import type { Config } from '../config.js'
import { openRuntime } from '../runtime.js'
import { parse, UsageError } from './args.js'

/** `mailroom clients create|list|disable|enable`. */
export async function clientsCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const [action, ...rest] = args
  const { values, positionals } = parse(rest, {
    subscription: { type: 'string' },
    name: { type: 'string' },
    json: { type: 'boolean', default: false },
  })
  if (!action || !['create', 'list', 'disable', 'enable'].includes(action))
    throw new UsageError('clients create|list|disable|enable')
  if (action === 'create' && !values.subscription) throw new UsageError('clients create needs --subscription NAME')
  if ((action === 'disable' || action === 'enable') && positionals.length !== 1)
    throw new UsageError(`clients ${action} needs one client id`)

  const ctx = await openRuntime(config)
  try {
    if (action === 'create') {
      const created = await ctx.clients.createClient({ subscription: values.subscription!, name: values.name })
      if (values.json) out(JSON.stringify(created))
      else
        out(
          `clientId:     ${created.clientId}\nclientSecret: ${created.clientSecret}\nsubId:        ${created.subId}\n(the secret is shown only now)`,
        )
    } else if (action === 'list') {
      const rows = await ctx.clients.list()
      if (values.json)
        out(
          JSON.stringify(
            rows.map((r) => ({
              clientId: r.client_id,
              subId: r.sub_id,
              subscription: r.subscription,
              name: r.name,
              status: r.status,
              createdAt: r.created_at,
            })),
          ),
        )
      else for (const r of rows) out(`${r.client_id}\t${r.status}\t${r.subscription}\t${r.sub_id}\t${r.name}`)
    } else {
      const status = action === 'disable' ? 'disabled' : 'active'
      if (!(await ctx.clients.setStatus(positionals[0]!, status))) throw new UsageError(`no client ${positionals[0]}`)
      out(
        `${positionals[0]} ${status}; running servers honour this ${config.database.kind === 'postgres' ? `within a second (at most ${config.clientStatusCacheSeconds} s if one missed the notification)` : `within ${config.clientStatusCacheSeconds} s`}`,
      )
    }
  } finally {
    await ctx.database.close()
  }
}

function out(text: string): void {
  process.stdout.write(`${text}\n`)
}
