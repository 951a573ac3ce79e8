import type { Config } from '../config.js'
import type { AppContext } from '../context.js'
import { openRuntime } from '../runtime.js'
import { AppError } from '../../platform/kit/errors.js'
import { parse, UsageError } from './args.js'

const USAGE = 'sso domains | sso grant DOMAIN SUB_ID | sso revoke DOMAIN'

/**
 * `mailroom sso domains|grant|revoke`: the operator's say over which subscription an email domain
 * signs in to (docs/sso.md). A subscription's admin only claims a domain; running this needs the
 * server and its database, and whoever runs it answers for the domain being that organisation's.
 */
export async function ssoCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const command = parseSsoCommand(args)
  const ctx = await openRuntime(config)
  try {
    await runSsoCommand(ctx, command, (text) => process.stdout.write(`${text}\n`))
  } finally {
    await ctx.database.close()
  }
}

type SsoCommand =
  | { action: 'domains'; json: boolean }
  | { action: 'grant'; domain: string; subId: string }
  | { action: 'revoke'; domain: string }

export function parseSsoCommand(args: string[]): SsoCommand {
  const [action, ...rest] = args
  const { values, positionals } = parse(rest, { json: { type: 'boolean', default: false } })
  switch (action) {
    case 'domains':
      return { action, json: values.json === true }
    case 'grant':
      if (positionals.length !== 2) throw new UsageError(`usage: ${USAGE}`)
      return { action, domain: positionals[0]!, subId: positionals[1]! }
    case 'revoke':
      if (positionals.length !== 1) throw new UsageError(`usage: ${USAGE}`)
      return { action, domain: positionals[0]! }
    default:
      throw new UsageError(`usage: ${USAGE}`)
  }
}

export async function runSsoCommand(ctx: AppContext, command: SsoCommand, out: (text: string) => void): Promise<void> {
  switch (command.action) {
    case 'domains': {
      const claims = await ctx.sso.listDomainClaims()
      if (command.json)
        return out(
          JSON.stringify(
            claims.map((c) => ({
              domain: c.domain,
              subId: c.sub_id,
              status: c.granted_at ? 'active' : 'pending',
            })),
          ),
        )
      for (const c of claims) out(`${c.domain}\t${c.sub_id}\t${c.granted_at ? 'active' : 'pending'}`)
      return
    }
    case 'grant': {
      let granted: boolean
      try {
        granted = await ctx.sso.grantDomain(command.domain, command.subId)
      } catch (e) {
        if (e instanceof AppError && e.status < 500) throw new UsageError(e.message)
        throw e
      }
      if (!granted) throw new UsageError(`${command.subId} does not claim ${command.domain}`)
      return out(`${command.domain} granted to ${command.subId}: its single sign-on starts for this domain`)
    }
    case 'revoke': {
      const n = await ctx.sso.revokeDomain(command.domain)
      return out(n > 0 ? `${command.domain}: grant revoked (pending again)` : `${command.domain}: no grant`)
    }
    default:
      return command satisfies never
  }
}
