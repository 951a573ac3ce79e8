import type { Config } from '../config.js'
import { openRuntime } from '../runtime.js'
import { CommandError, parse, UsageError } from './args.js'

/** `mailroom scim-token create --subscription NAME [--name LABEL] [--json]`: a SCIM token, printed once. */
export async function scimTokenCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const [action, ...rest] = args
  const { values } = parse(rest, {
    subscription: { type: 'string' },
    name: { type: 'string' },
    json: { type: 'boolean', default: false },
  })
  if (action !== 'create' || !values.subscription)
    throw new UsageError('scim-token create --subscription NAME [--name LABEL] [--json]')
  const ctx = await openRuntime(config)
  try {
    // A typo must not make a subscription nobody uses: the token's subscription exists already.
    if (!(await ctx.clients.subscriptionExists(values.subscription)))
      throw new CommandError(`no subscription named "${values.subscription}"`)
    const subId = await ctx.clients.ensureSubscription(values.subscription)
    const created = await ctx.directory.tokens.createToken(subId, values.name ?? 'SCIM')
    const scimUrl = `${config.publicUrl.replace(/\/$/, '')}/scim/v2`
    process.stdout.write(
      values.json
        ? `${JSON.stringify({ ...created, scimUrl })}\n`
        : `tokenId:  ${created.tokenId}\ntoken:    ${created.token}\nscimUrl:  ${scimUrl}\n(the token is shown only now)\n`,
    )
  } finally {
    await ctx.database.close()
  }
}
