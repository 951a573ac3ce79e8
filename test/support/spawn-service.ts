import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:net'
import path from 'node:path'
import { expect } from 'vitest'

const BIN = path.resolve(import.meta.dirname, '../../bin/mailroom.js')
// A first start on the embedded database (initdb, every migration) takes seconds alone and over a
// minute while CI runs the other tiers beside it (63 s measured at load 16): the wait is generous,
// a start that never comes still fails.
export const FIRST_START_MS = 150_000

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
  })
}

/** Runs `mailroom <args>` to completion: from the sources, as `npx mailroom` does in a checkout (from dist/ with MAILROOM_TEST_BUILT=1). */
export function runCli(
  args: string[],
  env: Record<string, string>,
): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, [BIN, ...args], {
    env: { ...process.env, ...env },
    encoding: 'utf8',
    timeout: FIRST_START_MS,
  })
  return { status: r.status, stdout: r.stdout, stderr: r.stderr }
}

export interface RunningService {
  child: ChildProcess
  baseUrl: string
  output: () => string
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Starts `mailroom serve` and waits until it answers /readyz. */
export async function startService(
  env: Record<string, string>,
  opts: { readyTimeoutMs?: number } = {},
): Promise<RunningService> {
  const port = await freePort()
  const child = spawn(process.execPath, [BIN, 'serve'], {
    env: { ...process.env, PORT: String(port), ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (out += d))
  const baseUrl = `http://127.0.0.1:${port}`
  const deadline = Date.now() + (opts.readyTimeoutMs ?? FIRST_START_MS)
  for (;;) {
    if (child.exitCode !== null) throw new Error(`service exited ${child.exitCode}:\n${out}`)
    try {
      if ((await fetch(`${baseUrl}/readyz`)).ok) break
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`service did not become ready:\n${out}`)
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  return {
    child,
    baseUrl,
    output: () => out,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode)
        child.once('exit', (code) => resolve(code))
        child.kill(signal)
      }),
  }
}

/**
 * A caller of a started service's API with a token of the client credentials: each call's answer
 * as JSON, and anything but a 2xx fails the test with the answer in the message.
 */
export async function apiCaller(baseUrl: string, clientId: string, clientSecret: string) {
  const res = await fetch(`${baseUrl}/auth/api/v1/token`, {
    method: 'POST',
    headers: { authorization: `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}` },
  })
  expect(res.status).toBe(200)
  const { access_token: token } = (await res.json()) as { access_token: string }
  return async (method: string, url: string, body?: unknown) => {
    const r = await fetch(`${baseUrl}${url}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
    const json = (await r.json()) as Record<string, any>
    expect(r.status, `${method} ${url}: ${JSON.stringify(json)}`).toBeLessThan(300)
    return json
  }
}
