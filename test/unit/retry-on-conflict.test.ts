import { describe, expect, it } from 'vitest'
import { retryOnConflict } from '../../src/platform/db/retry.js'

const failure = (code: string) => Object.assign(new Error(`sqlstate ${code}`), { code })

describe('retryOnConflict', () => {
  it('runs a deadlock victim or a serialization failure again, and answers the run that passed', async () => {
    for (const code of ['40P01', '40001']) {
      let runs = 0
      const answer = await retryOnConflict(async () => {
        if (++runs < 3) throw failure(code)
        return 'done'
      })
      expect([answer, runs]).toEqual(['done', 3])
    }
  })

  it('gives up after its attempts with the last failure', async () => {
    let runs = 0
    await expect(
      retryOnConflict(async () => {
        runs++
        throw failure('40P01')
      }, 2),
    ).rejects.toThrow('sqlstate 40P01')
    expect(runs).toBe(2)
  })

  it('never runs again what failed for another reason', async () => {
    for (const thrown of [failure('23505'), new Error('connection lost'), new Error('no code')]) {
      let runs = 0
      await expect(
        retryOnConflict(async () => {
          runs++
          throw thrown
        }),
      ).rejects.toBe(thrown)
      expect(runs).toBe(1)
    }
  })
})
