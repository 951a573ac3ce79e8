import type { FastifyInstance, InjectOptions, LightMyRequestResponse } from 'fastify'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { buildApp, type BuildAppOptions } from '../../src/app/app.js'
import { loadConfig, type Config } from '../../src/app/config.js'
import { createContext, type AppContext } from '../../src/app/context.js'
import { ManualClock } from '../../src/platform/kit/clock.js'
import { validatorFor } from './openapi-validator.js'
import { createTestDatabase } from './test-db.js'

export interface TestClient {
  clientId: string
  clientSecret: string
  subId: string
  token: string
  /** `{ authorization: 'Bearer …' }` */
  auth: Record<string, string>
}

export interface TestApp {
  app: FastifyInstance
  ctx: AppContext
  clock: ManualClock
  config: Readonly<Config>
  /** A new client of a new (or the named) subscription, with a fresh token. */
  newClient(subscription?: string): Promise<TestClient>
  /** The same client with a token issued now (after the test clock moved past the old one's expiry). */
  refresh(client: TestClient): Promise<TestClient>
  inject(opts: InjectOptions): Promise<LightMyRequestResponse>
  /** Another process of the same deployment: its own services, caches and pool, this database; closed with close(). */
  secondProcess(): Promise<FastifyInstance>
  close(): Promise<void>
}

export const TEST_SECRET = 'test-master-secret-0123456789abcdef-0123456789'

/** The real app on a fresh migrated database, with a clock the test moves. */
export async function buildTestApp(
  env: Record<string, string> = {},
  appOptions: BuildAppOptions = {},
): Promise<TestApp> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'mailroom-test-'))
  const config = loadConfig({
    MAILROOM_ENV: 'development',
    MAILROOM_DATA_DIR: dataDir,
    MAILROOM_SECRET: TEST_SECRET,
    LOG_LEVEL: 'silent',
    // Refusals at once in tests that count them; the pacing has its own (test/availability/refusal-pacing.test.ts).
    REFUSAL_DELAY_MS: '0',
    // Tests that hold the database make long heavy turns; the time share has its own (test/availability/heavy-share.test.ts).
    HEAVY_SHARE: '1',
    ...env,
  })
  // The API's statement bound only when a test asks for it (serve always has it; see openRuntime).
  const db = await createTestDatabase({
    statementTimeoutMs: env.DB_STATEMENT_TIMEOUT_MS ? config.limits.statementTimeoutMs : undefined,
  })
  const clock = new ManualClock(new Date())
  const ctx = createContext({ config, database: db.handle, masterSecret: TEST_SECRET, clock })
  await ctx.keys.init()
  const app = await buildApp(ctx, { logger: false, ...appOptions })
  await app.ready()
  // Every response a test receives is checked against the document the app serves.
  const validator = validatorFor(app.swagger() as Record<string, unknown>)
  let n = 0
  const others: FastifyInstance[] = []
  return {
    app,
    ctx,
    clock,
    config,
    async newClient(subscription?: string) {
      const created = await ctx.clients.createClient({
        subscription: subscription ?? `sub-${++n}-${Math.random().toString(36).slice(2, 8)}`,
      })
      const { access_token: token } = await ctx.tokens.issueToken({
        clientId: created.clientId,
        subId: created.subId,
        status: 'active',
      })
      return { ...created, token, auth: { authorization: `Bearer ${token}` } }
    },
    async refresh(client: TestClient) {
      const { access_token: token } = await ctx.tokens.issueToken({
        clientId: client.clientId,
        subId: client.subId,
        status: 'active',
      })
      return { ...client, token, auth: { authorization: `Bearer ${token}` } }
    },
    async inject(opts) {
      const res = await app.inject(opts)
      const url =
        typeof opts.url === 'string'
          ? opts.url
          : opts.url
            ? String(opts.url.pathname ?? '')
            : typeof opts.path === 'string'
              ? opts.path
              : (opts.path?.pathname ?? '')
      const problems = validator.problems(opts.method ?? 'GET', url, res)
      if (problems.length > 0)
        throw new Error(`The response does not match the OpenAPI document:\n  ${problems.join('\n  ')}`)
      return res
    },
    async secondProcess() {
      const other = createContext({ config, database: db.handle, masterSecret: TEST_SECRET, clock })
      await other.keys.init()
      const otherApp = await buildApp(other, { logger: false })
      await otherApp.ready()
      others.push(otherApp)
      return otherApp
    },
    async close() {
      for (const o of others) await o.close()
      await app.close()
      await db.drop()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

export function basic(clientId: string, secret: string): string {
  return `Basic ${Buffer.from(`${clientId}:${secret}`).toString('base64')}`
}
