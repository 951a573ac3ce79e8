/**
 * Issue 26.3, measured: one subscription loops large invalid JSON bodies while another GETs.
 * `node --import tsx bench/body-flood.ts [seconds] [loops] [path] [KiB]`: prints the quiet
 * subscription's served GETs and median, alone and during the flood.
 */
import type { AddressInfo } from 'node:net'
import { buildTestApp } from '../test/support/build-test-app.js'

const [seconds = 5, loops = 8] = process.argv.slice(2, 4).map(Number)
const path = process.argv[4] ?? '/api/v1/packages'
const bytes = Number(process.argv[5] ?? 1024) * 1024
const t = await buildTestApp()
await t.app.listen({ port: 0, host: '127.0.0.1' })
const base = `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`
const noisy = await t.newClient()
const quiet = await t.newClient()
const body = '['.padEnd(bytes, '1')

async function gets(ms: number) {
  const times: number[] = []
  const end = Date.now() + ms
  while (Date.now() < end) {
    const s = performance.now()
    await (await fetch(`${base}/api/v1/contacts?limit=1`, { headers: quiet.auth })).arrayBuffer()
    times.push(performance.now() - s)
  }
  times.sort((x, y) => x - y)
  return { served: times.length, medianMs: +times[times.length >> 1]!.toFixed(1) }
}

console.log('alone', await gets(seconds * 1000))
let stop = false
const statuses = new Map<number, number>()
const flood = Array.from({ length: loops }, async () => {
  while (!stop) {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { ...noisy.auth, 'content-type': 'application/json' },
      body,
    }).catch(() => undefined)
    if (res) {
      statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1)
      await res.arrayBuffer()
    }
  }
})
console.log(`flood ${loops} x ${bytes >> 10} KiB to ${path}`, await gets(seconds * 1000), Object.fromEntries(statuses))
stop = true
await Promise.all(flood)
t.app.server.closeAllConnections()
await t.close()
