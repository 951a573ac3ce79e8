import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose'
import type { Db } from '../../platform/db/database.js'
import { inTransaction } from '../../platform/db/transaction.js'
import type { Clock } from '../../platform/kit/clock.js'
import { open, seal } from '../../platform/kit/crypto.js'
import { newId } from '../../platform/kit/ids.js'
import { insertKey, listPublishedKeys, lockKeyRotation, retireKeysExcept, type StoredKey } from '../store/keys.js'
import type { PeriodicTask } from '../../platform/jobs/scheduler.js'

/**
 * Algorithms a signing key may use. ES256 is the default because every common JWT library verifies
 * it (jsonwebtoken, for one, has no EdDSA); EdDSA stays an option, and keys of any of these keep
 * verifying after the configured algorithm changes, until rotation retires them.
 */
export const SIGNING_ALGS = ['ES256', 'RS256', 'EdDSA'] as const
export type SigningAlg = (typeof SIGNING_ALGS)[number]
export const DEFAULT_SIGNING_ALG: SigningAlg = 'ES256'
export const TOKEN_TTL_SECONDS = 14_400
/**
 * How long a retired key stays published and accepted: one token lifetime plus a margin for other
 * processes, which may sign with the old key until their next reload (at most one schedule tick).
 */
const PUBLISH_SECONDS = TOKEN_TTL_SECONDS + 600

interface LoadedKey {
  kid: string
  alg: SigningAlg
  createdAt: Date
  retiredAt: Date | null
  publicJwk: JWK
  verifyKey: CryptoKey
}

export interface KeyStoreDeps {
  db: Db
  clock: Clock
  sealKey: Buffer
  rotationDays: number
  /** The algorithm of new keys; a signing key of another one is rotated out at init. */
  alg?: SigningAlg
}

export function isSigningAlg(alg: unknown): alg is SigningAlg {
  return (SIGNING_ALGS as readonly unknown[]).includes(alg)
}

function generate(alg: SigningAlg) {
  switch (alg) {
    case 'ES256':
      return generateKeyPair('ES256', { extractable: true })
    case 'RS256':
      return generateKeyPair('RS256', { modulusLength: 2048, extractable: true })
    case 'EdDSA':
      return generateKeyPair('EdDSA', { crv: 'Ed25519', extractable: true })
    default: {
      const never: never = alg
      throw new Error(`unknown signing algorithm ${String(never)}`)
    }
  }
}

/**
 * The signing keys, cached in memory. One key signs; older keys stay published and accepted until
 * the last token they signed has expired. Other processes may rotate: an unknown `kid` triggers a
 * reload (at most once every few seconds), and a timer picks up scheduled rotations.
 */
export class KeyStore {
  #keys = new Map<string, LoadedKey>()
  #signing: { kid: string; alg: SigningAlg; key: CryptoKey; createdAt: Date } | undefined
  #lastReload = 0
  #reloading: Promise<void> | undefined

  readonly alg: SigningAlg

  constructor(private readonly deps: KeyStoreDeps) {
    this.alg = deps.alg ?? DEFAULT_SIGNING_ALG
  }

  /**
   * Loads the keys and makes sure a current signing key exists (rotating when it is due, or when it
   * uses another algorithm than the configured one: the old key stays published like any retired key).
   */
  async init(): Promise<void> {
    await this.reload()
    if (!this.#signing || this.#isDue(this.#signing.createdAt) || this.#signing.alg !== this.alg)
      await this.rotate({ onlyIfDue: true })
  }

  /** Creates a new signing key; previous keys retire but stay published for one token lifetime. */
  async rotate(opts: { onlyIfDue?: boolean } = {}): Promise<string> {
    const kid = await inTransaction(this.deps.db, async (trx) => {
      await lockKeyRotation(trx)
      const now = this.deps.clock.now()
      const current = (await listPublishedKeys(trx, now, PUBLISH_SECONDS)).find((k) => k.retiredAt === null)
      // Another process may have rotated while we waited for the lock.
      if (opts.onlyIfDue && current && !this.#isDue(current.createdAt) && current.alg === this.alg) return current.kid
      const { privateKey, publicKey } = await generate(this.alg)
      const newKid = newId('k_', now.getTime())
      const publicJwk = { ...(await exportJWK(publicKey)), kid: newKid, alg: this.alg, use: 'sig' }
      const privateJwk = JSON.stringify(await exportJWK(privateKey))
      await insertKey(trx, {
        kid: newKid,
        alg: this.alg,
        publicJwk,
        privateSealed: seal(this.deps.sealKey, privateJwk, newKid),
        createdAt: now,
      })
      await retireKeysExcept(trx, newKid, now)
      return newKid
    })
    await this.reload()
    return kid
  }

  async reload(): Promise<void> {
    this.#reloading ??= this.#load().finally(() => (this.#reloading = undefined))
    return this.#reloading
  }

  async #load(): Promise<void> {
    const now = this.deps.clock.now()
    const stored = await listPublishedKeys(this.deps.db, now, PUBLISH_SECONDS)
    const next = new Map<string, LoadedKey>()
    for (const k of stored) next.set(k.kid, this.#keys.get(k.kid) ?? (await this.#loadPublic(k)))
    this.#keys = next
    const active = stored.find((k) => k.retiredAt === null)
    if (active && this.#signing?.kid !== active.kid) {
      const jwk = JSON.parse(open(this.deps.sealKey, active.privateSealed, active.kid)) as JWK
      const alg = storedAlg(active)
      this.#signing = {
        kid: active.kid,
        alg,
        key: (await importJWK(jwk, alg)) as CryptoKey,
        createdAt: active.createdAt,
      }
    }
    this.#lastReload = Date.now()
  }

  async #loadPublic(k: StoredKey): Promise<LoadedKey> {
    const publicJwk = k.publicJwk as JWK
    const alg = storedAlg(k)
    // Keys stored before the algorithm was configurable carry no `alg` in their JWK; publish it,
    // since JWKS consumers (jwks-rsa, openid-client) pick keys by it.
    return {
      kid: k.kid,
      alg,
      createdAt: k.createdAt,
      retiredAt: k.retiredAt,
      publicJwk: { ...publicJwk, alg },
      verifyKey: (await importJWK(publicJwk, alg)) as CryptoKey,
    }
  }

  #isDue(createdAt: Date): boolean {
    return this.deps.clock.now().getTime() - createdAt.getTime() >= this.deps.rotationDays * 86_400_000
  }

  signingKey(): { kid: string; alg: SigningAlg; key: CryptoKey } {
    if (!this.#signing) throw new Error('no signing key loaded; call init() first')
    return this.#signing
  }

  /** The verification key for `kid` and its algorithm, reloading once if another process has rotated. */
  async verificationKey(kid: string): Promise<{ key: CryptoKey; alg: SigningAlg } | undefined> {
    let found = this.#keys.get(kid)
    if (!found && Date.now() - this.#lastReload > 5_000) {
      await this.reload()
      found = this.#keys.get(kid)
    }
    return found && this.#stillPublished(found) ? { key: found.verifyKey, alg: found.alg } : undefined
  }

  #stillPublished(k: LoadedKey): boolean {
    return k.retiredAt === null || this.deps.clock.now().getTime() - k.retiredAt.getTime() < PUBLISH_SECONDS * 1000
  }

  jwks(): { keys: JWK[] } {
    return { keys: [...this.#keys.values()].filter((k) => this.#stillPublished(k)).map((k) => k.publicJwk) }
  }

  /**
   * Scheduled rotation and pick-up of other processes' rotations, for the app's one scheduler
   * (app/background.ts): a failed run is logged there and tried again at the next.
   */
  periodicTask(everyMs = 60_000): PeriodicTask {
    return { name: 'signing keys', everyMs, run: () => this.init() }
  }
}

function storedAlg(k: StoredKey): SigningAlg {
  if (!isSigningAlg(k.alg)) throw new Error(`signing key ${k.kid} has an unsupported algorithm ${k.alg}`)
  return k.alg
}
