import { hash, verify } from '@node-rs/argon2'
import { randomBytes } from 'node:crypto'

// argon2id with the library's defaults (m = 19 MiB, t = 2, p = 1: OWASP's minimum for argon2id), as a
// PHC string that carries its own parameters, so raising them later leaves old hashes verifiable.
export const hashPassword = (password: string): Promise<string> => hash(password)

// Verified against when the email is unknown, so that the answer takes as long either way.
let dummy: Promise<string> | undefined

/** Whether `password` matches `phc`; with no hash (unknown user) spends the same time and says no. */
export async function verifyPassword(phc: string | undefined, password: string): Promise<boolean> {
  if (phc === undefined) {
    dummy ??= hash(randomBytes(16).toString('hex'))
    await verify(await dummy, password).catch(() => false)
    return false
  }
  try {
    return await verify(phc, password)
  } catch {
    // A malformed stored hash signs no one in.
    return false
  }
}

/** A one-time password for a new user: 20 characters of base64url (120 bits), easy to copy, never stored. */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url')
}

/** At least 10 characters, at most 200 (argon2 is fed the whole string; an unbounded one is a CPU lever). */
export const PASSWORD_MIN = 10
export const PASSWORD_MAX = 200
