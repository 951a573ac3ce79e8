import { chmodSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import type { AppContext } from '../context.js'

interface DemoCredentials {
  clientId: string
  clientSecret: string
  subId: string
}

/**
 * Development and sandbox only: with no client yet, create a demo one, keep its credentials in the
 * data dir (beside the master secret, same protection) and print how to use it on every start.
 */
export async function announceFirstRun(ctx: AppContext, address: string | AddressInfo | null): Promise<void> {
  const { config } = ctx
  if (!config.demo) return
  const file = path.join(config.dataDir, 'demo-client.json')
  let creds: DemoCredentials | undefined
  try {
    creds = JSON.parse(readFileSync(file, 'utf8')) as DemoCredentials
  } catch {
    creds = undefined
  }
  if (creds && !(await ctx.clients.authenticate(creds.clientId, creds.clientSecret))) creds = undefined
  if (!creds) {
    if ((await ctx.clients.count()) > 0) {
      printLine(
        `Clients exist. Create another with: npx mailroom clients create --subscription demo${ctx.database.engine === 'pglite' ? ' (with the service stopped: the embedded database belongs to one process)' : ''}`,
      )
      return
    }
    creds = await ctx.clients.createClient({ subscription: 'demo', name: 'demo client' })
    // Written aside and renamed into place: a start killed mid-write must not leave half a file,
    // which the next start would read as no credentials while the client already exists.
    const aside = `${file}.${process.pid}.tmp`
    writeFileSync(aside, JSON.stringify(creds, null, 2), { mode: 0o600 })
    chmodSync(aside, 0o600)
    renameSync(aside, file)
  }
  const port = typeof address === 'object' && address ? address.port : config.port
  const base = `http://localhost:${port}`
  const p = config.prefixes
  printLine(
    [
      '',
      `mailroom (${config.env}, ${ctx.database.engine}) is listening on ${base}`,
      `Demo client (subscription "demo"; credentials kept in ${file}):`,
      `  clientId:     ${creds.clientId}`,
      `  clientSecret: ${creds.clientSecret}`,
      '',
      'Get a token:',
      `  TOKEN=$(curl -s -u '${creds.clientId}:${creds.clientSecret}' -X POST ${base}${p.auth}/api/v1/token | node -pe 'JSON.parse(require("fs").readFileSync(0)).access_token')`,
      'Call the API:',
      `  curl -s -H "Authorization: Bearer $TOKEN" ${base}${p.receiving}/api/v1/session`,
      `API docs: ${base}/docs`,
      '',
    ].join('\n'),
  )
}

function printLine(text: string): void {
  process.stdout.write(`${text}\n`)
}
