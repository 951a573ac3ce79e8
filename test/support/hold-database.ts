import { sql } from 'kysely'
import type { TestApp } from './build-test-app.js'

/**
 * Runs `during` while the packages table is locked in an open transaction, so requests that read it
 * stay in flight while the test looks at what the next one gets; resolves once the lock is released.
 */
export async function whilePackagesHeld(t: TestApp, during: () => Promise<void>): Promise<void> {
  let release!: () => void
  const released = new Promise<void>((r) => (release = r))
  let locked!: () => void
  const isLocked = new Promise<void>((r) => (locked = r))
  const holder = t.ctx.db.transaction().execute(async (trx) => {
    await sql`lock table packages in access exclusive mode`.execute(trx)
    locked()
    await released
  })
  await isLocked
  try {
    await during()
  } finally {
    release()
    await holder
  }
}
