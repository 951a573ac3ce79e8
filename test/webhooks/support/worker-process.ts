import { spawn, type ChildProcess } from 'node:child_process'
import path from 'node:path'

const BIN = path.resolve(import.meta.dirname, '../../../bin/mailroom.js')

export interface WorkerProcess {
  child: ChildProcess
  output: () => string
  /** Sends the signal and resolves with the exit code (null when killed by the signal). */
  stop(signal?: NodeJS.Signals): Promise<number | null>
}

/** Starts `mailroom worker` from the sources and waits until it says it is up. */
export async function startWorker(env: Record<string, string>): Promise<WorkerProcess> {
  const child = spawn(process.execPath, [BIN, 'worker'], {
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (out += d))
  const deadline = Date.now() + 45_000
  while (!out.includes('webhook worker is up')) {
    if (child.exitCode !== null) throw new Error(`worker exited ${child.exitCode}:\n${out}`)
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`worker did not start:\n${out}`)
    }
    await new Promise((r) => setTimeout(r, 50))
  }
  return {
    child,
    output: () => out,
    stop: (signal = 'SIGTERM') =>
      new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode)
        child.once('exit', (code) => resolve(code))
        child.kill(signal)
      }),
  }
}
