import { describe, expect, it } from 'vitest'
import { useTestApp, useClient } from '../support/use-test-app.js'

/** Issue 14.1: one bad request costs a bounded amount of work and answers a bounded list. */
describe('validation problems are bounded', () => {
  const t = useTestApp()
  const c = useClient(t)

  const post = (payload: string) =>
    t.inject({
      method: 'POST',
      url: '/api/v1/carriers',
      headers: { ...c.auth, 'content-type': 'application/json' },
      payload,
    })

  // 70,000 items: as large as the route's body limit lets through (160 KiB, app/body-limits.ts).
  it('answers a 140 KB array of wrong-typed items with its first problem and a note, not 70,000 items', async () => {
    const body = `[${Array(70_000).fill('1').join(',')}]`
    expect(body.length).toBeLessThan(160 * 1024)
    const res = await post(body)
    expect(res.statusCode).toBe(400)
    expect(res.body.length).toBeLessThan(2_000)
    const { errors } = res.json()
    expect(errors).toHaveLength(2)
    expect(errors[0]).toMatchObject({
      errorCode: 'validation_error',
      additionalCode: 'GEN-4000',
      additionalParameters: 'body',
    })
    expect(errors[0].errorDescription).toMatch(/200 items/)
    expect(errors[1]).toMatchObject({ errorCode: 'validation_error', additionalCode: 'GEN-4000' })
    expect(errors[1].errorDescription).toMatch(/checking stopped at its first problem/)
    // All six fields on every item (CONTRACT §1): the note names no field.
    expect(errors[1].additionalParameters).toBe('')
  })

  it('lists at most 50 problems of a smaller input, then one item counting the rest', async () => {
    const res = await post(JSON.stringify(Array.from({ length: 180 }, (_, i) => i)))
    expect(res.statusCode).toBe(400)
    const { errors } = res.json()
    expect(errors).toHaveLength(51)
    expect(errors.slice(0, 50).map((e: { additionalParameters: string }) => e.additionalParameters)).toEqual(
      Array.from({ length: 50 }, (_, i) => `[${i}]`),
    )
    expect(errors[50].errorDescription).toBe('…and 130 more problems not listed.')
    expect(new Set(errors.map((e: { correlationID: string }) => e.correlationID)).size).toBe(1)
  })

  it('still lists every problem of a small input', async () => {
    const res = await post(JSON.stringify([1, 'ok', true]))
    expect(res.statusCode).toBe(400)
    expect(res.json().errors.map((e: { additionalParameters: string }) => e.additionalParameters)).toEqual([
      '[0]',
      '[2]',
    ])
  })
})
