import { sql } from 'kysely'
import { beforeAll, describe, expect, it } from 'vitest'
import { IDEMPOTENCY_ABANDONED_MS } from '../../src/platform/idempotency/hooks.js'
import type { RecordOutcome } from '../../src/platform/idempotency/outcome.js'
import { AppError } from '../../src/platform/kit/errors.js'
import { api } from '../support/factories.js'
import { useClient, useTestApp } from '../support/use-test-app.js'

// An Idempotency-Key's claim belongs to the request that made it: a request that outlived it (a
// retry took the abandoned claim over) neither overwrites nor frees the retry's answer, and a
// transaction that recorded an answer and then rolled back leaves the key answerable, not "in
// progress" for five minutes.
const t = useTestApp()
const client = useClient(t)
let h: ReturnType<typeof api>
beforeAll(() => {
  h = api(t, client)
})

type CreateContact = (subId: string, input: { name: string }, outcome?: RecordOutcome<unknown>) => Promise<unknown>
const contacts = () => t.ctx.companions.contacts as unknown as { createContact: CreateContact }

async function contactsNamed(name: string): Promise<number> {
  const r = await sql<{
    n: number
  }>`select count(*)::int as n from contacts where sub_id = ${client.subId} and name = ${name}`.execute(t.ctx.db)
  return r.rows[0]!.n
}

/**
 * Replaces createContact for its next call; the original is back for every later one. Resolves
 * when that call is made: the request has claimed its key by then (the claim is a preHandler).
 */
function once(
  replacement: (original: CreateContact, ...args: Parameters<CreateContact>) => Promise<unknown>,
): Promise<void> {
  const service = contacts()
  const original = service.createContact
  return new Promise((called) => {
    service.createContact = (...args) => {
      service.createContact = original
      called()
      return replacement(original.bind(service), ...args)
    }
  })
}

describe('an Idempotency-Key claim belongs to its request', () => {
  it("a request that outlived its claim and then failed does not free the retry's answer: a third try replays it, nothing is written twice", async () => {
    const body = { contactType: 'RECEIVER', name: 'Slow Starter' }
    let resume!: () => void
    const paused = new Promise<void>((r) => (resume = r))
    // The first try stalls (a stuck process), then fails with a 500 without writing.
    const stalled = once(async () => {
      await paused
      throw new Error('stalled and failed')
    })
    const first = h.call('POST', '/api/v1/contacts', body, { 'idempotency-key': 'outlived' })
    await stalled
    t.clock.advance(IDEMPOTENCY_ABANDONED_MS + 60_000)
    const retry = await h.call('POST', '/api/v1/contacts', body, { 'idempotency-key': 'outlived' })
    expect(retry.statusCode, retry.body).toBe(201)
    resume()
    expect((await first).statusCode).toBe(500)

    const third = await h.call('POST', '/api/v1/contacts', body, { 'idempotency-key': 'outlived' })
    expect(third.statusCode).toBe(201)
    expect(third.headers['idempotent-replayed']).toBe('true')
    expect(third.json().contactId).toBe(retry.json().contactId)
    expect(await contactsNamed('Slow Starter')).toBe(1)
  })

  it("a request that outlived its claim and then was refused does not overwrite the retry's answer", async () => {
    const body = { contactType: 'RECEIVER', name: 'Late Refusal' }
    let resume!: () => void
    const paused = new Promise<void>((r) => (resume = r))
    const stalled = once(async () => {
      await paused
      throw new AppError('VALIDATION_FAILED', { field: 'name', description: 'refused late' })
    })
    const first = h.call('POST', '/api/v1/contacts', body, { 'idempotency-key': 'overwritten' })
    await stalled
    t.clock.advance(IDEMPOTENCY_ABANDONED_MS + 60_000)
    const retry = await h.call('POST', '/api/v1/contacts', body, { 'idempotency-key': 'overwritten' })
    expect(retry.statusCode).toBe(201)
    resume()
    expect((await first).statusCode).toBe(400)

    const third = await h.call('POST', '/api/v1/contacts', body, { 'idempotency-key': 'overwritten' })
    expect(third.statusCode).toBe(201)
    expect(third.json().contactId).toBe(retry.json().contactId)
  })

  it('an answer recorded in a transaction that then rolled back (a refusal after it) is not left "in progress": the refusal is stored and replayed', async () => {
    const body = { contactType: 'RECEIVER', name: 'Rolled Back' }
    // The answer is recorded in the write's transaction, then something in the same transaction refuses: all of it rolls back.
    void once((original, subId, input, outcome) =>
      original(
        subId,
        input,
        outcome &&
          (async (trx, result) => {
            await outcome(trx, result)
            throw new AppError('VALIDATION_FAILED', {
              field: 'name',
              description: 'refused after the answer was recorded',
            })
          }),
      ),
    )
    const first = await h.call('POST', '/api/v1/contacts', body, { 'idempotency-key': 'rolled-back' })
    expect(first.statusCode).toBe(400)
    expect(await contactsNamed('Rolled Back')).toBe(0)

    const again = await h.call('POST', '/api/v1/contacts', body, { 'idempotency-key': 'rolled-back' })
    expect(again.statusCode, again.body).toBe(400)
    expect(again.headers['idempotent-replayed']).toBe('true')
    expect(again.body).toBe(first.body)
  })
})
