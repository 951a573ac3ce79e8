import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createJobRunner } from '../../src/platform/jobs/runner.js'

/**
 * When the one job runner looks for work (platform/jobs/runner.ts), on a fake clock: an idle
 * runner's sleep doubles from pollMs to idlePollMs, and a nudge (a write in this process) cuts a
 * long sleep to pollMs after the last look, never shorter.
 */
describe('the job runner’s looks', () => {
  beforeEach(() => vi.useFakeTimers({ now: 0 }))
  afterEach(() => vi.useRealTimers())

  /** A runner over an empty queue that notes the time of every claim. */
  function idleRunner(idlePollMs?: number) {
    const looks: number[] = []
    const runner = createJobRunner<never>(
      {
        claim: async () => {
          looks.push(Date.now())
          return []
        },
        run: async () => {},
      },
      { concurrency: 4, pollMs: 200, idlePollMs, log: { error: () => {} }, name: 'test' },
    )
    return { looks, runner }
  }

  it('doubles an idle sleep from pollMs up to idlePollMs', async () => {
    const { looks, runner } = idleRunner(2000)
    const stop = runner.start()
    await vi.advanceTimersByTimeAsync(9_000)
    // Sleeps 400, 800, 1600, then 2000 each (the first look's sleep doubles from 200 at once).
    expect(looks).toEqual([0, 400, 1200, 2800, 4800, 6800, 8800])
    const stopping = stop()
    await vi.runAllTimersAsync()
    await stopping
  })

  it('without idlePollMs looks every pollMs', async () => {
    const { looks, runner } = idleRunner()
    const stop = runner.start()
    await vi.advanceTimersByTimeAsync(1_000)
    expect(looks).toEqual([0, 200, 400, 600, 800, 1000])
    const stopping = stop()
    await vi.runAllTimersAsync()
    await stopping
  })

  it('a nudge during a long sleep brings the next look to pollMs after the last one', async () => {
    const { looks, runner } = idleRunner(2000)
    const stop = runner.start()
    await vi.advanceTimersByTimeAsync(2_900) // looks at 0, 400, 1200, 2800; sleeping 2000 until 4800
    expect(looks.at(-1)).toBe(2800)
    runner.nudge() // 100 ms after the last look: the next is at 3000, not at once and not at 4800
    await vi.advanceTimersByTimeAsync(99)
    expect(looks.at(-1)).toBe(2800)
    await vi.advanceTimersByTimeAsync(1)
    expect(looks.at(-1)).toBe(3000)
    // That look found nothing either: the runner goes back to its longest sleep (work found would
    // have kept it at pollMs).
    await vi.advanceTimersByTimeAsync(2_000)
    expect(looks.slice(-2)).toEqual([3000, 5000])
    const stopping = stop()
    await vi.runAllTimersAsync()
    await stopping
  })

  it('a nudge long after the last look looks at once', async () => {
    const { looks, runner } = idleRunner(2000)
    const stop = runner.start()
    await vi.advanceTimersByTimeAsync(3_500) // last look at 2800, sleeping until 4800
    runner.nudge()
    await vi.advanceTimersByTimeAsync(0)
    expect(looks.at(-1)).toBe(3500)
    const stopping = stop()
    await vi.runAllTimersAsync()
    await stopping
  })

  it('a nudge of a stopped runner does nothing', async () => {
    const { looks, runner } = idleRunner(2000)
    const stop = runner.start()
    const stopping = stop()
    await vi.runAllTimersAsync()
    await stopping
    const seen = looks.length
    runner.nudge()
    await vi.advanceTimersByTimeAsync(5_000)
    expect(looks).toHaveLength(seen)
  })
})
