import { describe, expect, it } from 'vitest'
import { refusalWaitMs } from '../../src/platform/fairness/refusal-pacing.js'

describe('how long a refusal is held', () => {
  it.each([
    // [delay ms, Retry-After header, held ms]
    [400, '60', 400], // Retry-After longer than the delay: the delay
    [5000, '1', 1000], // shorter: the Retry-After
    [5000, 1, 1000], // a number header as Fastify may hold it
    [400, '0', 0], // "retry now": not held
    [400, undefined, 400], // no Retry-After: the delay
    [400, 'Wed, 21 Oct 2026 07:28:00 GMT', 400], // an HTTP-date: not read, the delay
    [400, '-5', 400], // nonsense: the delay
    [400, 'soon', 400],
    [400, '0.25', 250], // fractional seconds
  ] as const)('delay %d ms, Retry-After %s → %d ms', (delay, header, held) => {
    expect(refusalWaitMs(delay, header)).toBe(held)
  })
})
