import type { Config } from '../config.js'
import { openRuntime } from '../runtime.js'
import { seedSubscription } from '../seed/seed.js'
import { parse, UsageError } from './args.js'

/** `mailroom seed [--packages N] [--contacts N] [--subscription NAME] [--json]`: a realistic data set. */
export async function seedCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  const { values } = parse(args, {
    packages: { type: 'string', default: '10000' },
    contacts: { type: 'string', default: '5000' },
    subscription: { type: 'string' },
    json: { type: 'boolean', default: false },
  })
  const packages = Number(values.packages)
  const contacts = Number(values.contacts)
  if (!Number.isInteger(packages) || packages < 0 || !Number.isInteger(contacts) || contacts < 1)
    throw new UsageError('--packages must be ≥ 0 and --contacts ≥ 1 (integers)')
  const ctx = await openRuntime(config)
  const started = Date.now()
  const bar = (done: number, total: number) => {
    const width = 30
    const filled = Math.round((done / Math.max(total, 1)) * width)
    const rate = Math.round(done / Math.max((Date.now() - started) / 1000, 0.001))
    process.stderr.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done}/${total} packages, ${rate}/s `)
  }
  try {
    const phase = (name: string) => process.stderr.write(`\n${name} (${((Date.now() - started) / 1000).toFixed(1)} s)…`)
    const result = await seedSubscription(ctx.db, ctx.clients, {
      subscription: values.subscription ?? `seed-${Date.now()}`,
      packages,
      contacts,
      onProgress: bar,
      onPhase: phase,
    })
    process.stderr.write(`\ndone in ${((Date.now() - started) / 1000).toFixed(1)} s\n`)
    if (values.json) process.stdout.write(`${JSON.stringify(result)}\n`)
    else
      process.stdout.write(
        `subscription ${result.subId}: ${result.packages} packages, ${result.contacts} contacts\nclientId:     ${result.clientId}\nclientSecret: ${result.clientSecret}\n`,
      )
  } finally {
    await ctx.database.close()
  }
}
