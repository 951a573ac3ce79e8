import type { Config } from '../config.js'
import { openRuntime } from '../runtime.js'
import { UsageError } from './args.js'

/** `mailroom keys rotate`: a new signing key now; the old one stays published until its tokens expire. */
export async function keysCommand(config: Readonly<Config>, args: string[]): Promise<void> {
  if (args[0] !== 'rotate') throw new UsageError('keys rotate')
  const ctx = await openRuntime(config)
  try {
    const kid = await ctx.keys.rotate()
    process.stdout.write(`new signing key ${kid}; running servers switch within a minute\n`)
  } finally {
    await ctx.database.close()
  }
}
