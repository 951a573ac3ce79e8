import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { ScanService } from '../../src/scan/service.js'
import { createScanImageService } from '../../src/scan/scan-image-service.js'
import { Presence } from '../../src/platform/fairness/presence.js'

/**
 * Label photos decoded back to back are held to the subscription's share of the decode threads
 * while another subscription is served (issue 14: a thread is a core). The threads are replaced by
 * a reader that takes a known time, so the test measures the share, not zxing; on a fake clock, so
 * the waits are exact and the machine's load cannot move them (issue 24: no wall-clock assertions).
 */
describe('the time share of the label-photo decode threads', () => {
  beforeEach(() => vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date', 'performance'] }))
  afterEach(() => vi.useRealTimers())
  const DECODE_MS = 800
  function service(presence: Presence) {
    return createScanImageService({
      // No barcode is found, so nothing is decoded as a scan.
      scan: {} as ScanService,
      images: {
        decodeDataUrl: () => ({ bytes: Buffer.alloc(1), contentType: 'image/png' }),
        read: async () => ({ bytes: Buffer.alloc(1) }),
      },
      decode: { maxPixels: 1e6, threads: 1, maxQueue: 4, perSubscription: 2, timeoutMs: 20_000 },
      // Half of the one thread, a 100 ms burst: an 800 ms decode leaves 100 + 400 − 800 = 300 owed, 600 ms to wait.
      share: { share: 0.5, burstMs: 100 },
      presence,
      reader: {
        read: () => new Promise((r) => setTimeout(() => r([]), DECODE_MS)),
        close: async () => {},
      },
    })
  }
  /** How long the work took on the fake clock, running every timer it sets. */
  const timed = async (work: () => Promise<unknown>) => {
    const start = performance.now()
    const done = work()
    await vi.runAllTimersAsync()
    await done
    return performance.now() - start
  }

  it('holds the next photo of a subscription past its share back while another subscription is served', async () => {
    const presence = new Presence()
    const photos = service(presence)
    presence.seen('quiet')
    expect(await timed(() => photos.decodeImage('noisy', { imageId: 'img_1' }))).toBe(DECODE_MS)
    presence.seen('quiet')
    // 300 slot-ms owed at a share of 0.5: held 600 ms, then decoded.
    expect(await timed(() => photos.decodeImage('noisy', { imageId: 'img_2' }))).toBe(DECODE_MS + 600)
    // The other subscription's photos are its own share: not held back.
    expect(await timed(() => photos.decodeImage('quiet', { imageId: 'img_3' }))).toBe(DECODE_MS)
  })

  it('does not hold back a subscription alone on the service', async () => {
    const presence = new Presence()
    const photos = service(presence)
    presence.seen('noisy')
    expect(await timed(() => photos.decodeImage('noisy', { imageId: 'img_1' }))).toBe(DECODE_MS)
    expect(await timed(() => photos.decodeImage('noisy', { imageId: 'img_2' }))).toBe(DECODE_MS)
  })
})
