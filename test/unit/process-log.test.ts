import { Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { processLog } from '../../src/platform/kit/process-log.js'

/** Issue 14.11 for what workers log: the same redaction as the request log. */
describe('the process log (webhook worker, jobs)', () => {
  function capture() {
    const lines: string[] = []
    const stream = new Writable({
      write(chunk: Buffer, _enc, done) {
        lines.push(chunk.toString())
        done()
      },
    })
    return { log: processLog('info', stream), lines }
  }

  it('blanks credentials and the values a PostgreSQL error repeats, and keeps the rest', () => {
    const { log, lines } = capture()
    const err = Object.assign(new Error('duplicate key value violates unique constraint'), {
      detail: 'Key (email)=(ada@example.com) already exists.',
      parameters: ['ada@example.com'],
    })
    log.error(
      { err, deliveryId: 'dlv_1', auth: { apiKey: 'k-123', password: 'hunter2' }, token: 'eyJ.x.y' },
      'webhook attempt failed unexpectedly',
    )
    expect(lines).toHaveLength(1)
    const line = JSON.parse(lines[0]!) as Record<string, unknown>
    expect(line).toMatchObject({ level: 50, msg: 'webhook attempt failed unexpectedly', deliveryId: 'dlv_1' })
    expect(lines[0]).not.toMatch(/ada@example\.com|k-123|hunter2|eyJ/)
    expect(line.err).toMatchObject({ message: 'duplicate key value violates unique constraint', detail: '[redacted]' })
  })

  it('writes nothing below its level', () => {
    const lines: string[] = []
    const quiet = processLog(
      'warn',
      new Writable({
        write(chunk: Buffer, _enc, done) {
          lines.push(chunk.toString())
          done()
        },
      }),
    )
    quiet.info({}, 'idle')
    quiet.warn({}, 'slow')
    expect(lines.map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['slow'])
  })
})
