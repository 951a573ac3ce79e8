import { describe, expect, it } from 'vitest'
import { AppError } from '../../src/platform/kit/errors.js'
import { HeavyShare, type HeavyShareOptions } from '../../src/platform/fairness/heavy-share.js'
import { Presence } from '../../src/platform/fairness/presence.js'

/** A HeavyShare on a hand-stepped clock whose waits are recorded and pass the time they wait. */
function stepped(options: Partial<HeavyShareOptions> = {}) {
  let t = 0
  const waits: number[] = []
  const presence = new Presence(() => t)
  const share = new HeavyShare({
    share: 0.5,
    slots: 1,
    burstMs: 100,
    maxWaitMs: 0,
    what: 'heavy work',
    presence,
    wait: async (ms) => {
      waits.push(ms)
      t += ms
    },
    ...options,
  })
  return {
    share,
    presence,
    waits,
    now: () => t,
    advance: (ms: number) => void (t += ms),
    /** Time passing while `other` keeps making requests (one every 250 ms). */
    accompany: (ms: number, other = 'quiet') => {
      for (let left = ms; left > 0; left -= 250) {
        presence.seen(other)
        t += Math.min(250, left)
      }
      presence.seen(other)
    },
    /** One heavy turn of `subId` holding its slot for `ms`. */
    run: async (subId: string, ms: number) => {
      await share.turn(subId)
      const end = share.begin(subId)
      t += ms
      end()
    },
  }
}

describe('HeavyShare: a subscription’s share of the heavy slots over time', () => {
  it('holds a subscription in debt back while another is present, for its debt over its share', async () => {
    const s = stepped()
    s.presence.seen('quiet')
    await s.run('noisy', 300) // 100 of burst + 150 refilled meanwhile − 300 held: 50 owed
    expect(s.share.credit('noisy')).toBe(-50)
    s.presence.seen('quiet')
    await s.share.turn('noisy')
    // 50 slot-ms owed, paid back at 0.5 of one slot: 100 ms.
    expect(s.waits).toEqual([100])
    expect(s.share.credit('noisy')).toBe(0)
    // Paid: the next turn goes at once.
    await s.share.turn('noisy')
    expect(s.waits).toEqual([100])
  })

  it('keeps a subscription running back to back at its share, whatever the length of its turns', async () => {
    for (const [share, turnMs] of [
      [0.5, 5],
      [0.5, 40],
      [0.5, 250],
      [0.25, 40],
      [0.8, 40],
    ] as const) {
      const s = stepped({ share, burstMs: 0 })
      let busy = 0
      for (let i = 0; i < 200; i++) {
        s.presence.seen('quiet') // the other tenant keeps coming
        await s.run('noisy', turnMs)
        busy += turnMs
      }
      // Busy `share` of the time, to within the one turn whose debt is not yet waited out.
      expect(busy / s.now()).toBeGreaterThanOrEqual(share - 1e-9)
      expect(busy / s.now()).toBeLessThanOrEqual(share + turnMs / s.now() + 1e-9)
    }
  })

  it('lets a burst run at full speed: turns within the burst never wait', async () => {
    const s = stepped({ burstMs: 1000 })
    s.presence.seen('quiet')
    for (let i = 0; i < 9; i++) await s.run('noisy', 100)
    expect(s.waits).toEqual([])
    // Each 100 ms turn cost 100 and refilled 50.
    expect(s.share.credit('noisy')).toBe(1000 - 9 * 50)
  })

  it('drains by every slot a subscription holds: concurrent turns are charged exactly', async () => {
    const s = stepped({ slots: 4, burstMs: 0 })
    s.presence.seen('quiet')
    // Three slots for 400 ms while the share is 0.5 × 4 = 2 slots: 400 slot-ms owed.
    const ends = ['noisy', 'noisy', 'noisy'].map((sub) => s.share.begin(sub))
    s.advance(400)
    s.presence.seen('quiet')
    for (const end of ends) end()
    expect(s.share.credit('noisy')).toBe(-400)
    await s.share.turn('noisy')
    expect(s.waits).toEqual([200])
    // One slot of four is within the share: a sequential stream never owes.
    await s.run('noisy', 400)
    expect(s.share.credit('noisy')).toBe(0)
  })

  it('is work-conserving: a subscription alone is neither charged nor held back', async () => {
    const s = stepped({ burstMs: 0 })
    s.presence.seen('noisy')
    for (let i = 0; i < 10; i++) await s.run('noisy', 500)
    expect(s.waits).toEqual([])
    expect(s.share.credit('noisy')).toBe(0)
  })

  it('counts another subscription present for one second after its last request', () => {
    const s = stepped()
    s.presence.seen('quiet')
    s.presence.seen('noisy')
    expect(s.presence.othersPresent('noisy')).toBe(true)
    expect(s.presence.othersPresent('quiet')).toBe(true)
    s.advance(999)
    expect(s.presence.othersPresent('noisy')).toBe(true)
    s.advance(1)
    expect(s.presence.othersPresent('noisy')).toBe(false)
    // Its own requests do not make a subscription company.
    s.presence.seen('noisy')
    s.presence.seen('noisy')
    expect(s.presence.othersPresent('noisy')).toBe(false)
    // The second most recent subscription counts when the most recent is the one asking.
    s.presence.seen('third')
    s.presence.seen('noisy')
    expect(s.presence.othersPresent('noisy')).toBe(true)
    expect(s.presence.othersPresent('third')).toBe(true)
  })

  it('waits for nothing once the others have gone quiet, however much is owed', async () => {
    const s = stepped({ burstMs: 0 })
    const end = s.share.begin('noisy')
    s.accompany(1000)
    end()
    expect(s.share.credit('noisy')).toBe(-500)
    s.advance(1200) // the quiet tenant left; 600 refilled meanwhile
    await s.share.turn('noisy')
    expect(s.waits).toEqual([])
  })

  it('refuses a wait past maxWaitMs with TENANT_BUSY (429) and a Retry-After of the whole wait, unless unbounded', async () => {
    const s = stepped({ burstMs: 0, maxWaitMs: 1000 })
    const end = s.share.begin('noisy')
    s.accompany(2400)
    end() // 1,200 owed: 2,400 ms to pay back
    const refused = await s.share.turn('noisy').catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(AppError)
    expect((refused as AppError).code).toBe('TENANT_BUSY')
    expect((refused as AppError).options.headers).toEqual({ 'retry-after': '3' })
    expect(s.waits).toEqual([])
    // An export between two batches waits however long it takes.
    await s.share.turn('noisy', false)
    expect(s.waits).toEqual([2400])
  })

  it('charges a long turn only for the part of it others were present: from their first request', async () => {
    const s = stepped({ burstMs: 0 })
    const end = s.share.begin('noisy')
    s.advance(5000) // alone: refilled, not charged
    s.accompany(400) // the quiet tenant arrives
    end()
    // Charged the 400 ms in company (and the second its last request keeps it present is not over yet).
    expect(s.share.credit('noisy')).toBe(0.5 * 400 - 400)
  })

  it('charges a long turn only for the part of it others were present: until a second after their last request', async () => {
    const s = stepped({ share: 0.1, burstMs: 0 })
    s.presence.seen('quiet')
    const end = s.share.begin('noisy')
    s.advance(5000) // the quiet tenant went quiet at once: present for the first 1,000 ms
    end()
    expect(s.share.credit('noisy')).toBe(0.1 * 5000 - 1000)
  })

  it('is off at a share of 1: nothing is charged or waited', async () => {
    const s = stepped({ share: 1, burstMs: 0 })
    s.presence.seen('quiet')
    await s.run('noisy', 5000)
    await s.run('noisy', 5000)
    expect(s.waits).toEqual([])
    expect(s.share.enabled).toBe(false)
    expect(s.share.remembered).toBe(0)
  })

  it('refuses a share outside (0, 1]', () => {
    for (const share of [0, -0.5, 1.5, Number.NaN])
      expect(
        () => new HeavyShare({ share, slots: 1, burstMs: 0, maxWaitMs: 0, what: 'x', presence: new Presence() }),
      ).toThrow(/share/)
  })

  it('forgets subscriptions that are idle and full again, so memory follows those in the middle of heavy work', async () => {
    const s = stepped({ burstMs: 10 })
    for (let i = 0; i < 3000; i++) {
      s.presence.seen('quiet')
      await s.run(`sub${i}`, 20)
    }
    // Those refilled since the last sweeps are gone already.
    expect(s.share.remembered).toBeLessThanOrEqual(1024)
    s.advance(60_000) // every bucket full again
    for (let i = 0; i < 1100; i++) await s.share.turn('noisy')
    expect(s.share.remembered).toBe(1)
    // A subscription holding a slot is never forgotten, full or not.
    const end = s.share.begin('long')
    s.advance(60_000)
    for (let i = 0; i < 1100; i++) await s.share.turn('noisy')
    expect(s.share.remembered).toBe(2)
    end()
  })
})
