import { describe, expect, it } from 'vitest'
import { AppError } from '../../src/platform/kit/errors.js'
import { WorkSlots } from '../../src/platform/fairness/work-slots.js'

describe('WorkSlots', () => {
  it('runs at most its slots at once and hands a freed slot to the longest waiting, in arrival order', async () => {
    const slots = new WorkSlots(2, 60_000)
    const a = await slots.acquire()
    const b = await slots.acquire()
    const order: string[] = []
    const c = slots.acquire().then((release) => (order.push('c'), release))
    const d = slots.acquire().then((release) => (order.push('d'), release))
    await new Promise((r) => setImmediate(r))
    expect(order).toEqual([])
    expect(slots.state).toEqual({ busy: 2, waiting: 2 })
    b()
    b() // a second release of one slot frees nothing more
    const releaseC = await c
    expect(order).toEqual(['c'])
    expect(slots.state).toEqual({ busy: 2, waiting: 1 })
    a()
    const releaseD = await d
    expect(order).toEqual(['c', 'd'])
    releaseC()
    releaseD()
    expect(slots.state).toEqual({ busy: 0, waiting: 0 })
  })

  it('answers a wait past its bound with SERVICE_BUSY (503, Retry-After) and forgets the waiter', async () => {
    const slots = new WorkSlots(1, 30)
    const held = await slots.acquire()
    const refused = await slots.acquire().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(refused).toBeInstanceOf(AppError)
    expect((refused as AppError).status).toBe(503)
    expect((refused as AppError).code).toBe('SERVICE_BUSY')
    expect((refused as AppError).options.headers).toEqual({ 'retry-after': '2' })
    expect(slots.state).toEqual({ busy: 1, waiting: 0 })
    held()
    expect(slots.state).toEqual({ busy: 0, waiting: 0 })
  })

  it('with no bound on the wait (0, as DB_STATEMENT_TIMEOUT_MS=0 says), waits instead of refusing at once', async () => {
    const slots = new WorkSlots(1, 0)
    const held = await slots.acquire()
    let granted = false
    const waiting = slots.acquire().then((release) => ((granted = true), release))
    await new Promise((r) => setTimeout(r, 20))
    expect(granted).toBe(false)
    held()
    ;(await waiting)()
    expect(granted).toBe(true)
    expect(slots.state).toEqual({ busy: 0, waiting: 0 })
  })

  it('waits past its bound for an unbounded acquire (an export between batches), and still refuses a bounded one', async () => {
    const slots = new WorkSlots(1, 30)
    const held = await slots.acquire()
    let granted = false
    const waiting = slots.acquire(false).then((release) => ((granted = true), release))
    const refused = await slots.acquire().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect((refused as AppError).code).toBe('SERVICE_BUSY')
    await new Promise((r) => setTimeout(r, 60))
    expect(granted).toBe(false)
    expect(slots.state).toEqual({ busy: 1, waiting: 1 })
    held()
    ;(await waiting)()
    expect(granted).toBe(true)
    expect(slots.state).toEqual({ busy: 0, waiting: 0 })
  })

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new WorkSlots(0, 1)).toThrow()
  })
})
