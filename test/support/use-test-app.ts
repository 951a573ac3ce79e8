import { channel } from 'node:diagnostics_channel'
import type { FastifyInstance, RouteOptions } from 'fastify'
import { afterAll, beforeAll } from 'vitest'
import type { BuildAppOptions } from '../../src/app/app.js'
import { buildTestApp, type TestApp, type TestClient } from './build-test-app.js'
import { createTestDatabase } from './test-db.js'

export interface UseTestAppOptions extends BuildAppOptions {
  /** Sees every route the app declares, as Fastify's onRoute hook does (the auth matrix's census). */
  onRoute?: (route: RouteOptions) => void
}

/**
 * The real app on a fresh migrated database for the tests of this file (or of the describe block
 * it is called in): built in a beforeAll, and closed with its database and its outbound webhook
 * pool in an afterAll it registers itself (fastify/demo's `build(t)`). Hooks a file registers after
 * this call run after the build and, vitest running after-hooks as a stack, before the teardown.
 *
 * The value returned stands for the app once it is built: use it inside tests and hooks.
 */
export function useTestApp(env: Record<string, string> = {}, options: UseTestAppOptions = {}): TestApp {
  const { onRoute, ...appOptions } = options
  let built: TestApp | undefined
  beforeAll(async () => {
    built = onRoute
      ? await recordingRoutes(onRoute, () => buildTestApp(env, appOptions))
      : await buildTestApp(env, appOptions)
  })
  afterAll(async () => {
    const t = built
    built = undefined
    if (!t) return
    // A listening app (real sockets, fetch): kept-alive connections would hold its close.
    if (t.app.server.listening) t.app.server.closeAllConnections()
    await t.ctx.webhooks.close()
    t.ctx.notifications.close()
    await t.close()
  })
  return late('the test app', () => built)
}

/** A client of a new (or the named) subscription with a fresh token, made once the app is built. */
export function useClient(t: TestApp, subscription?: string): TestClient {
  let client: TestClient | undefined
  beforeAll(async () => {
    client = await t.newClient(subscription)
  })
  return late('the test client', () => client)
}

export type TestDatabase = Awaited<ReturnType<typeof createTestDatabase>>

/** A fresh database (migrated unless told not to) for the tests of this block, dropped after them. */
export function useTestDatabase(opts: Parameters<typeof createTestDatabase>[0] = {}): TestDatabase {
  let db: TestDatabase | undefined
  beforeAll(async () => {
    db = await createTestDatabase(opts)
  })
  afterAll(async () => {
    const d = db
    db = undefined
    await d?.drop()
  })
  return late('the test database', () => db)
}

/**
 * Fastify publishes each new instance on this channel before anything is registered on it (its
 * documented hook for instrumentation), so an onRoute hook added then sees every route of the
 * app as built, without the app knowing it is under test.
 */
async function recordingRoutes<T>(onRoute: (route: RouteOptions) => void, build: () => Promise<T>): Promise<T> {
  const init = channel('fastify.initialization')
  const subscriber = (message: unknown) => (message as { fastify: FastifyInstance }).fastify.addHook('onRoute', onRoute)
  init.subscribe(subscriber)
  try {
    return await build()
  } finally {
    init.unsubscribe(subscriber)
  }
}

/** `get()` once its hook has run; any use before (or after the teardown) says what went wrong. */
function late<T extends object>(what: string, get: () => T | undefined): T {
  const now = (): T => {
    const value = get()
    if (value === undefined)
      throw new Error(
        `${what} is used outside the tests and hooks of the block that declared it (before its beforeAll ran, or after its afterAll)`,
      )
    return value
  }
  return new Proxy({} as T, {
    // Not a promise: `await` and vitest's pretty-printer ask for `then` before anything is built.
    get: (_, key) => (key === 'then' ? undefined : Reflect.get(now(), key)),
    set: (_, key, value) => Reflect.set(now(), key, value),
    has: (_, key) => Reflect.has(now(), key),
    ownKeys: () => Reflect.ownKeys(now()),
    getOwnPropertyDescriptor: (_, key) => Reflect.getOwnPropertyDescriptor(now(), key),
  })
}
