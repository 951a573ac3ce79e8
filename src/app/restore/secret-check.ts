import type { Db } from '../../platform/db/database.js'
import { deriveKey } from '../../platform/kit/crypto.js'
import { systemClock } from '../../platform/kit/clock.js'
import { KeyStore } from '../../access/index.js'
import { isWrongKeyFailure } from '../secrets.js'

/**
 * Whether `secret` is the master secret `db` was made with: it opens the database's signing key,
 * sealed with a key derived from it, as the service does when it starts (a database that never
 * started has none, and any secret will do). Read only. A backup checks the secret it saves, a
 * restore the one it restores with: each would otherwise end well and leave a database nothing opens.
 */
export async function secretOpens(db: Db, secret: string): Promise<boolean> {
  const keys = new KeyStore({ db, clock: systemClock, sealKey: deriveKey(secret, 'signing-key-seal'), rotationDays: 1 })
  try {
    await keys.reload()
    return true
  } catch (e) {
    if (isWrongKeyFailure(e)) return false
    throw e
  }
}
