import { createHash } from 'node:crypto'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { Db } from '../db/database.js'
import type { Clock } from '../kit/clock.js'
import { open, seal } from '../kit/crypto.js'
import { AppError, invalid } from '../kit/errors.js'
import * as repo from './store.js'
import { claimLost, type RecordOutcome } from './outcome.js'

declare module 'fastify' {
  interface FastifyRequest {
    idempotencyKey?: string
    /** When this request's claim was made, and whether its write's transaction stored the answer. */
    /** `seal`: the stored answer sealed for this key (answers can hold secrets shown once, e.g. a webhook's signingSecret). */
    idempotencyClaim?: { at: Date; recorded: boolean; seal(body: string): string }
  }
}

const KEY = /^[\x21-\x7E]{1,255}$/
/** How long a key is remembered (a retry after that is a new request). */
export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000
/** A claim not completed after this long belongs to a request whose process died: a retry may take it. */
export const IDEMPOTENCY_ABANDONED_MS = 5 * 60 * 1000

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The route takes Idempotency-Key (set by registerIdempotency). */
    idempotencyKey?: boolean
  }
}

function hashOf(request: FastifyRequest): string {
  return createHash('sha256')
    .update(`${request.method} ${request.url}\n${JSON.stringify(request.body ?? null)}`)
    .digest('hex')
}

/**
 * `Idempotency-Key` on any POST of the scope (CONTRACT §5): the first request claims the key; a
 * retry with the same body gets the stored response (`Idempotent-Replayed: true`), another body a
 * 409, and a retry while the first is still running a 409 too. A 5xx releases the key so that the
 * retry runs again; 4xx answers are kept, as they would be the same again. Keys live 24 hours
 * (purged by the housekeeping job); a claim abandoned by a crashed process is free after 5 minutes.
 */
export function registerIdempotency(app: FastifyInstance, deps: { db: Db; clock: Clock; sealKey: Buffer }): void {
  // Stored answers are sealed (AES-256-GCM, bound to subscription and key): some hold a secret that
  // is otherwise kept only sealed (a webhook configuration's signingSecret, shown once and replayed).
  const aadOf = (subId: string, key: string) => `idempotency:${subId}:${key}`
  const sealFor = (subId: string, key: string) => (body: string) => seal(deps.sealKey, body, aadOf(subId, key))
  // Answers stored before sealing began (at most 24 hours of them) are plain JSON, which never starts with "v1.".
  const openStored = (subId: string, key: string, body: string) =>
    body.startsWith('v1.') ? open(deps.sealKey, body, aadOf(subId, key)) : body

  // Attached to the POST routes only, so that reads pay for no hook (and no promise) at all.
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method]
    if (!methods.includes('POST')) return
    // Read by the OpenAPI document (http/openapi-document.ts), which declares the headers.
    route.config = { ...route.config, idempotencyKey: true }
    route.preHandler = [claim, ...asArray(route.preHandler)]
    route.onSend = [...asArray(route.onSend), complete]
  })

  async function claim(request: FastifyRequest, reply: FastifyReply) {
    if (request.method !== 'POST') return
    const header = request.headers['idempotency-key']
    if (header === undefined) return
    if (typeof header !== 'string' || !KEY.test(header))
      throw invalid('Idempotency-Key', 'Idempotency-Key must be 1 to 255 printable ASCII characters.')
    const { subId } = request.tenant
    const hash = hashOf(request)
    const now = deps.clock.now()
    const cutoffs = {
      expiredBefore: new Date(now.getTime() - IDEMPOTENCY_TTL_MS),
      abandonedBefore: new Date(now.getTime() - IDEMPOTENCY_ABANDONED_MS),
    }
    if (await repo.claimKey(deps.db, subId, header, hash, now, cutoffs)) {
      request.idempotencyKey = header
      request.idempotencyClaim = { at: now, recorded: false, seal: sealFor(subId, header) }
      return
    }
    const stored = await repo.findKey(deps.db, subId, header)
    if (!stored) throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS')
    if (stored.request_hash !== hash) throw new AppError('IDEMPOTENCY_KEY_REUSED', { field: 'Idempotency-Key' })
    if (stored.status_code === null) throw new AppError('IDEMPOTENCY_KEY_IN_PROGRESS', { field: 'Idempotency-Key' })
    const body = stored.response_body === null ? stored.response_body : openStored(subId, header, stored.response_body)
    return reply
      .code(stored.status_code)
      .header('idempotent-replayed', 'true')
      .type(stored.response_type ?? 'application/json')
      .send(body)
  }

  async function complete(request: FastifyRequest, reply: FastifyReply, payload: unknown) {
    const key = request.idempotencyKey
    const claim = request.idempotencyClaim
    if (!key || !claim) return payload
    request.idempotencyKey = undefined
    const { subId } = request.tenant
    // Both statements touch only this request's claim while it is unanswered: an answer stored by
    // the write's committed transaction stands, and a claim a retry took over is the retry's. So a
    // transaction that recorded the answer and then rolled back (a refusal after it, a batch that
    // failed) leaves the claim unanswered, and this stores or frees it like any other.
    if (reply.statusCode >= 500 || typeof payload !== 'string') await repo.releaseKey(deps.db, subId, key, claim.at)
    // Recorded and committed (the usual success): nothing left to store.
    else if (!(claim.recorded && reply.statusCode < 400))
      await repo.completeClaim(deps.db, subId, key, claim.at, {
        status: reply.statusCode,
        body: claim.seal(payload),
        type: String(reply.getHeader('content-type') ?? 'application/json'),
      })
    return payload
  }
}

/**
 * What a route that writes hands its service (see RecordOutcome): the answer `status` with the
 * service's result, serialized by the route's own response schema, stored in the write's
 * transaction. Undefined when the request carries no key. The route must send that result as is.
 */
export function outcomeOf<R>(
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
): RecordOutcome<R> | undefined {
  const key = request.idempotencyKey
  const claim = request.idempotencyClaim
  if (!key || !claim) return undefined
  return async (trx, result) => {
    const body = claim.seal(reply.serializeInput(result as Record<string, unknown>, String(status)) as string)
    if (
      !(await repo.completeClaim(trx, request.tenant.subId, key, claim.at, {
        status,
        body,
        type: 'application/json; charset=utf-8',
      }))
    ) {
      throw claimLost()
    }
    claim.recorded = true
  }
}

function asArray<T>(hooks: T | T[] | undefined): T[] {
  return hooks === undefined ? [] : Array.isArray(hooks) ? hooks : [hooks]
}

/** Forgets keys past their lifetime, in short batches; returns how many went. */
export async function purgeIdempotencyKeys(db: Db, clock: Clock, batch = 1_000): Promise<number> {
  const olderThan = new Date(clock.now().getTime() - IDEMPOTENCY_TTL_MS)
  let total = 0
  for (;;) {
    const n = await repo.purgeKeys(db, olderThan, batch)
    total += n
    if (n < batch) return total
  }
}
