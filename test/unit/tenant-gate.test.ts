import { describe, expect, it } from 'vitest'
import { AppError } from '../../src/platform/kit/errors.js'
import { TenantGate } from '../../src/platform/fairness/tenant-gate.js'

describe('TenantGate', () => {
  it('lets a tenant hold at most its bound, refuses the next with TENANT_BUSY and Retry-After, and leaves other tenants alone', async () => {
    const gate = new TenantGate('image decodes', 2, 3)
    const a1 = gate.acquire('a')
    const a2 = gate.acquire('a')
    let refused: unknown
    try {
      gate.acquire('a')
    } catch (e) {
      refused = e
    }
    expect(refused).toBeInstanceOf(AppError)
    expect((refused as AppError).code).toBe('TENANT_BUSY')
    expect((refused as AppError).status).toBe(429)
    expect((refused as AppError).options.headers).toEqual({ 'retry-after': '3' })
    expect((refused as AppError).message).toContain('image decodes')
    const b = gate.acquire('b')
    a1()
    a1() // a second release of the same slot gives nothing back twice
    expect(gate.inUse('a')).toBe(1)
    gate.acquire('a')
    expect(() => gate.acquire('a')).toThrow(AppError)
    a2()
    b()
    expect(gate.inUse('b')).toBe(0)
  })

  it('run() gives the slot back when the work fails', async () => {
    const gate = new TenantGate('searches', 1)
    await expect(
      gate.run('a', async () => {
        throw new Error('boom')
      }),
    ).rejects.toThrow('boom')
    expect(gate.inUse('a')).toBe(0)
    await expect(gate.run('a', async () => 7)).resolves.toBe(7)
  })

  it('refuses a bound that is not a positive integer', () => {
    expect(() => new TenantGate('x', 0)).toThrow()
    expect(() => new TenantGate('x', 1.5)).toThrow()
  })
})
