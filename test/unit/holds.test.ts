import { describe, expect, it } from 'vitest'
import { effectiveDeadline } from '../../src/holds/model/deadline.js'
import { holdInForce, lastDayOf, spanOfDays, waitClockStart } from '../../src/holds/model/hold.js'

// The pure rules of issue 30.2: when a held recipient's wait counts from (reminders, returns), and
// which return deadline a site inherits.
const at = (s: string) => new Date(s)
const hold = (from: string, to: string) => spanOfDays(from, to)

describe('holds pause the wait', () => {
  it('spans whole UTC days, endDate included', () => {
    const h = hold('2026-12-01', '2026-12-03')
    expect(h).toEqual({ startsAt: at('2026-12-01T00:00:00Z'), endsAt: at('2026-12-04T00:00:00Z') })
    expect(lastDayOf(h)).toBe('2026-12-03')
    expect(lastDayOf({ startsAt: h.startsAt, endsAt: at('2026-12-02T15:00:00Z') })).toBe('2026-12-02')
  })

  it('without a hold, the wait counts from when it began', () => {
    expect(waitClockStart(at('2026-12-01T10:00:00Z'), [], at('2026-12-09T00:00:00Z'))).toEqual(
      at('2026-12-01T10:00:00Z'),
    )
  })

  it('a hold in force moves the start past now: nothing measured from it is due (paused)', () => {
    const now = at('2026-12-02T12:00:00Z')
    const start = waitClockStart(at('2026-12-01T10:00:00Z'), [hold('2026-12-02', '2026-12-05')], now)
    expect(start).toEqual(at('2026-12-06T00:00:00Z'))
    expect(start.getTime()).toBeGreaterThan(now.getTime())
    expect(holdInForce([hold('2026-12-02', '2026-12-05')], now)).toBeDefined()
  })

  it('after the hold, each step counts from its end: the first step is due its hours later, not at once', () => {
    const arrival = at('2026-12-01T10:00:00Z')
    const holds = [hold('2026-12-01', '2026-12-05')]
    const now = at('2026-12-06T08:00:00Z')
    const start = waitClockStart(arrival, holds, now)
    expect(start).toEqual(at('2026-12-06T00:00:00Z'))
    const due = (hours: number) => start.getTime() + hours * 3600_000 <= now.getTime()
    // Steps of 24 h and 48 h: neither is due 8 h after the hold, though both were long past the arrival.
    expect([due(24), due(48)]).toEqual([false, false])
    expect(holdInForce(holds, now)).toBeUndefined()
  })

  it('ignores holds that ended before the wait began and holds not begun yet; overlapping holds: the latest end', () => {
    const arrival = at('2026-12-10T10:00:00Z')
    const now = at('2026-12-12T00:00:00Z')
    expect(waitClockStart(arrival, [hold('2026-12-01', '2026-12-05'), hold('2026-12-20', '2026-12-22')], now)).toEqual(
      arrival,
    )
    const overlapping = [hold('2026-12-10', '2026-12-11'), hold('2026-12-11', '2026-12-14')]
    expect(waitClockStart(arrival, overlapping, now)).toEqual(at('2026-12-15T00:00:00Z'))
    expect(holdInForce(overlapping, now)).toEqual(overlapping[1])
  })
})

describe('return deadlines inherit', () => {
  const own = new Map([
    ['site', 30],
    ['building', 7],
  ])
  it("a site's own deadline, else its nearest ancestor's, else none", () => {
    expect(effectiveDeadline({ inboundSiteId: 'shelf', ancestorlist: ['site', 'building'] }, own)).toEqual({
      days: 7,
      fromSiteId: 'building',
    })
    expect(effectiveDeadline({ inboundSiteId: 'annex', ancestorlist: ['site'] }, own)).toEqual({
      days: 30,
      fromSiteId: 'site',
    })
    expect(effectiveDeadline({ inboundSiteId: 'building', ancestorlist: ['site'] }, own)?.days).toBe(7)
    expect(effectiveDeadline({ inboundSiteId: 'elsewhere', ancestorlist: [] }, own)).toBeUndefined()
  })
})
