import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { useTestApp } from '../support/use-test-app.js'

// The console as the server serves it: the page at /console and at any app path under it, its
// files (its own and the installed Preact, htm and zxing-wasm), the CSP that lets only them run,
// and the budget of its JavaScript.
const t = useTestApp()

const get = (url: string, headers: Record<string, string> = {}) => t.app.inject({ method: 'GET', url, headers })

/** Every file the page loads, following imports from the entry module and the import map. */
async function servedFiles(): Promise<Map<string, Buffer>> {
  const page = await get('/console')
  const found = new Map<string, Buffer>()
  const queue = [...page.body.matchAll(/(?:src|href)="(\/console\/[^"]+)"/g)].map((m) => m[1]!)
  const importMap = JSON.parse(/<script type="importmap">(.*?)<\/script>/s.exec(page.body)![1]!) as {
    imports: Record<string, string>
  }
  queue.push(...Object.values(importMap.imports), '/console/vendor/zxing/reader/zxing_reader.wasm')
  while (queue.length > 0) {
    const url = queue.shift()!
    if (found.has(url)) continue
    const res = await get(url)
    expect(res.statusCode, url).toBe(200)
    found.set(url, res.rawPayload)
    if (!/\.m?js$/.test(url)) continue
    for (const m of res.body.matchAll(/(?:import|from)\s*\(?\s*["']([^"']+)["']/g)) {
      const spec = m[1]!
      if (importMap.imports[spec]) queue.push(importMap.imports[spec])
      else if (spec.startsWith('.')) queue.push(new URL(spec, `http://x${url}`).pathname)
    }
  }
  return found
}

describe('the console', () => {
  it('serves its page at /console and at every app path under it (the browser routes)', async () => {
    for (const url of [
      '/console',
      '/console/',
      '/console/receive',
      '/console/packages/PKG123',
      '/console/admin/users',
    ]) {
      const res = await get(url)
      expect(res.statusCode, url).toBe(200)
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8')
      expect(res.body).toContain('<script type="module" src="/console/app.js"></script>')
      expect(res.headers['cache-control']).toBe('no-store')
    }
  })

  it('answers 404 for a file it does not have, and never reads the file system from a path', async () => {
    for (const url of [
      '/console/nope.js',
      '/console/../package.json',
      '/console/vendor/%2e%2e/%2e%2e/package.json',
      '/console/api/nothing',
    ]) {
      const res = await get(url)
      expect(res.statusCode, url).toBe(404)
      expect(res.body).not.toContain('"dependencies"')
    }
  })

  it('lets only its own scripts, the import map (by hash) and its WebAssembly run; nothing from another origin', async () => {
    const res = await get('/console/receive')
    const csp = String(res.headers['content-security-policy'])
    expect(csp).toContain("default-src 'self'")
    expect(csp).toMatch(/script-src 'self' 'wasm-unsafe-eval' 'sha256-[A-Za-z0-9+/=]+'/)
    expect(csp).toContain("connect-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toMatch(/https?:/)
    // The API keeps its own, stricter policy.
    const api = await get('/healthz')
    expect(String(api.headers['content-security-policy'])).toContain("default-src 'none'")
  })

  it('revalidates files by ETag: a second load is a 304', async () => {
    const first = await get('/console/app.js')
    expect(first.statusCode).toBe(200)
    expect(first.headers['content-type']).toBe('text/javascript; charset=utf-8')
    const again = await get('/console/app.js', { 'if-none-match': String(first.headers.etag) })
    expect(again.statusCode).toBe(304)
    const wasm = await get('/console/vendor/zxing/reader/zxing_reader.wasm')
    expect(wasm.headers['content-type']).toBe('application/wasm')
  })

  it('keeps its JavaScript within 300 KB gzipped, every file it serves counted, and names no other host', async () => {
    const files = await servedFiles()
    const scripts = [...files].filter(([url]) => /\.m?js$/.test(url))
    expect(scripts.map(([url]) => url)).toEqual(
      expect.arrayContaining([
        '/console/app.js',
        '/console/vendor/preact.mjs',
        '/console/vendor/htm.mjs',
        '/console/vendor/zxing/es/reader/index.js',
        '/console/vendor/zxing/es/share.js',
      ]),
    )
    const gzipped = scripts.reduce((sum, [, body]) => sum + gzipSync(body, { level: 9 }).length, 0)
    expect(gzipped).toBeLessThanOrEqual(300 * 1024)
    for (const [url, body] of files) {
      if (url.endsWith('.wasm')) continue
      // Our own files load nothing from elsewhere (zxing's default CDN location is overridden in camera.js).
      if (!url.startsWith('/console/vendor/')) expect(body.toString(), url).not.toMatch(/https?:\/\/(?!localhost)/)
    }
  })
})
