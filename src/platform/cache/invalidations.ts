import { sql } from 'kysely'
import pg from 'pg'
import type { Executor } from '../db/transaction.js'

/** What a process may hold in memory that another process can change. */
export const INVALIDATION_TOPICS = ['carriers', 'customfields', 'sites', 'client'] as const
export type InvalidationTopic = (typeof INVALIDATION_TOPICS)[number]

/** Drops `key` (a subscription id, a client id) from a cache; `undefined`: drop everything. */
export type Drop = (key: string | undefined) => void

/**
 * Invalidation of in-memory caches across the processes of a deployment (issue 16.3). A write
 * announces what it changed in its own transaction; every process that listens drops that entry.
 * The writer still drops its own entry at once: the announcement is for the others.
 */
export interface Invalidations {
  /** Announces, inside `ex`'s transaction (so only if it commits), that `key` of `topic` changed. */
  announce(ex: Executor, topic: InvalidationTopic, key: string): Promise<void>
  /** Registers a cache; it is also dropped whole whenever announcements may have been missed. */
  on(topic: InvalidationTopic, drop: Drop): void
  /** Starts receiving other processes' announcements; resolves to the stop function. */
  listen(log?: (msg: string, extra?: Record<string, unknown>) => void): Promise<() => Promise<void>>
}

/** PGlite: one process by construction (the data directory is locked), so there is nobody to tell. */
export function localInvalidations(): Invalidations {
  return {
    announce: async () => {},
    on: () => {},
    listen: async () => async () => {},
  }
}

export const INVALIDATION_CHANNEL = 'mailroom_invalidation'

export interface PgInvalidationOptions {
  url: string
  /** First reconnection delay; doubled on each failure up to `maxBackoffMs`. */
  backoffMs?: number
  maxBackoffMs?: number
}

/**
 * PostgreSQL LISTEN/NOTIFY: NOTIFY is transactional (delivered on commit, never on rollback) and
 * reaches every session listening at that moment, within milliseconds. One dedicated connection
 * per process listens (not a pool connection: LISTEN belongs to its session). Notifications sent
 * while that connection is down are lost, so every cache is dropped whole each time it
 * (re)connects; the caches' TTL stays as the net under anything else.
 */
export function pgInvalidations(opts: PgInvalidationOptions): Invalidations {
  const drops = new Map<InvalidationTopic, Drop[]>()
  const dropAll = () => {
    for (const list of drops.values()) for (const drop of list) drop(undefined)
  }
  const dispatch = (payload: string | undefined) => {
    const at = payload?.indexOf(':') ?? -1
    if (!payload || at < 0) return
    const list = drops.get(payload.slice(0, at) as InvalidationTopic)
    if (list) for (const drop of list) drop(payload.slice(at + 1))
  }

  return {
    async announce(ex, topic, key) {
      await sql`select pg_notify(${INVALIDATION_CHANNEL}, ${`${topic}:${key}`})`.execute(ex)
    },

    on(topic, drop) {
      drops.set(topic, [...(drops.get(topic) ?? []), drop])
    },

    async listen(log) {
      const backoffMs = opts.backoffMs ?? 100
      const maxBackoffMs = opts.maxBackoffMs ?? 5_000
      let stopped = false
      let client: pg.Client | undefined
      let timer: NodeJS.Timeout | undefined
      let delay = backoffMs
      let firstAttempt: ((error?: unknown) => void) | undefined

      const connect = async () => {
        timer = undefined
        if (stopped) return
        const c = new pg.Client({ connectionString: opts.url, application_name: 'mailroom-invalidation' })
        let lost = false
        const onLost = (error?: unknown) => {
          if (lost) return
          lost = true
          if (client === c) client = undefined
          void c.end().catch(() => {})
          if (stopped) return
          log?.('invalidation listener lost its connection; reconnecting', {
            delayMs: delay,
            error: error instanceof Error ? error.message : undefined,
          })
          timer = setTimeout(() => void connect(), delay)
          timer.unref()
          delay = Math.min(delay * 2, maxBackoffMs)
        }
        c.on('error', onLost)
        c.on('end', () => onLost())
        c.on('notification', (msg) => {
          if (msg.channel === INVALIDATION_CHANNEL) dispatch(msg.payload)
        })
        try {
          await c.connect()
          await c.query(`listen ${INVALIDATION_CHANNEL}`)
        } catch (error) {
          onLost(error)
          firstAttempt?.(error)
          firstAttempt = undefined
          return
        }
        if (stopped) {
          await c.end().catch(() => {})
          return
        }
        client = c
        delay = backoffMs
        // Whatever was announced before this moment may have been missed.
        dropAll()
        firstAttempt?.()
        firstAttempt = undefined
      }

      // The first connection is awaited (a process starts with its caches covered); its failure is
      // logged and retried like any later loss, not fatal: the TTL still bounds staleness.
      await new Promise<unknown>((resolve) => {
        firstAttempt = resolve
        void connect()
      })
      return async () => {
        stopped = true
        if (timer) clearTimeout(timer)
        const c = client
        client = undefined
        if (c) await c.end().catch(() => {})
      }
    },
  }
}
