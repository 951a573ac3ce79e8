import { linkSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { ConfigError, type Config } from './config.js'
import { randomToken } from '../platform/kit/crypto.js'

/**
 * The master secret: MAILROOM_SECRET, or one generated on first start and kept in the data dir
 * (production refuses that at config time). Every other key is derived from it, so losing it
 * invalidates client secrets, signing keys and sealed webhook credentials.
 */
export function loadMasterSecret(config: Pick<Config, 'masterSecret' | 'dataDir'>): {
  secret: string
  generated: boolean
} {
  if (config.masterSecret) return { secret: config.masterSecret, generated: false }
  const file = path.join(config.dataDir, 'master.secret')
  try {
    return { secret: checked(readFileSync(file, 'utf8').trim(), file), generated: false }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
  }
  mkdirSync(config.dataDir, { recursive: true })
  const secret = randomToken(48)
  // Written whole under another name, then linked into place: a process killed mid-write leaves no
  // empty secret file behind (which would stop every later start), and link fails with EEXIST if
  // another process got there first: theirs wins and we read it back.
  const staging = `${file}.${process.pid}.tmp`
  writeFileSync(staging, `${secret}\n`, { mode: 0o600 })
  try {
    linkSync(staging, file)
    return { secret, generated: true }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e
    return { secret: checked(readFileSync(file, 'utf8').trim(), file), generated: false }
  } finally {
    rmSync(staging, { force: true })
  }
}

/** A truncated or emptied secret file must stop the service, not quietly derive every key from nothing. */
function checked(secret: string, file: string): string {
  if (secret.length < 32)
    throw new ConfigError([
      `${file}: the generated master secret is shorter than 32 characters (damaged?); restore it, or set MAILROOM_SECRET`,
    ])
  return secret
}
