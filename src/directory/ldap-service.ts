import { performance } from 'node:perf_hooks'
import type { ContactsService, SyncReport } from '../contacts/index.js'
import type { Db } from '../platform/db/database.js'
import type { PeriodicTask } from '../platform/jobs/scheduler.js'
import type { Clock } from '../platform/kit/clock.js'
import { open, seal } from '../platform/kit/crypto.js'
import { AppError, invalid, registerErrors } from '../platform/kit/errors.js'
import type { LdapSettings, PutLdapSettings } from './api/ldap-schemas.js'
import { DEFAULT_MAPPING, entryToPerson, requestedAttributes, type LdapMapping } from './model/ldap-mapping.js'
import { pullEntries } from './ldap/pull.js'
import * as repo from './store/ldap-settings.js'
import type { LdapRunJson } from './store/tables.js'

export const LDAP_ERRORS = registerErrors({
  LDAP_NOT_CONFIGURED: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'DIR-4041',
    message: 'No LDAP directory is configured for this subscription.',
  },
  // The settings name a directory that cannot be read now: a state the admin must fix, not a fault of ours.
  LDAP_UNREACHABLE: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'DIR-4090',
    message: 'The LDAP directory could not be read.',
  },
})

const MASK = '********'
/** Subscriptions one periodic pass syncs; the others wait for the next pass. */
const DUE_BATCH = 5

export type LdapRun = LdapRunJson & Partial<Pick<SyncReport, 'errors'>>

export interface LdapDeps {
  db: Db
  clock: Clock
  contacts: Pick<ContactsService, 'syncDirectory'>
  /** Seals bind passwords at rest (AES-256-GCM, bound to the subscription, as webhook secrets). */
  sealKey: Buffer
  log?: (msg: string, extra: Record<string, unknown>) => void
}

const aad = (subId: string) => `ldap:${subId}:bind-password`

function toSettings(r: repo.LdapSettingsRow): LdapSettings {
  return {
    enabled: r.enabled,
    url: r.url,
    bindDn: r.bind_dn,
    bindPassword: MASK,
    baseDn: r.base_dn,
    filter: r.filter,
    mapping: Object.fromEntries(
      Object.entries(r.mapping).filter((e): e is [string, string] => typeof e[1] === 'string'),
    ),
    intervalMinutes: r.interval_minutes,
    nextRunAt: new Date(r.next_run_at).toISOString(),
    ...(r.last_run ? { lastRun: r.last_run } : {}),
  }
}

export type LdapService = ReturnType<typeof createLdapService>

/**
 * The LDAP / Active Directory pull: a subscription's settings, a sync run (now, or when due),
 * its outcome kept for the admin to read.
 */
export function createLdapService(deps: LdapDeps) {
  const { db, clock, contacts, sealKey } = deps

  async function mustFind(subId: string) {
    const row = await repo.findSettings(db, subId)
    if (!row) throw new AppError(LDAP_ERRORS.LDAP_NOT_CONFIGURED)
    return row
  }

  async function run(row: repo.LdapSettingsRow, dryRun: boolean): Promise<LdapRun> {
    const started = performance.now()
    const at = clock.now().toISOString()
    const mapping: LdapMapping = row.mapping
    let report: SyncReport
    try {
      const entries = await pullEntries({
        url: row.url,
        bindDn: row.bind_dn,
        bindPassword: open(sealKey, row.bind_password_sealed, aad(row.sub_id)),
        baseDn: row.base_dn,
        filter: row.filter,
        attributes: requestedAttributes(mapping),
      })
      report = await contacts.syncDirectory(
        row.sub_id,
        'ldap',
        entries.map((e) => entryToPerson(e, mapping)),
        {
          dryRun,
        },
      )
    } catch (err) {
      const failed: LdapRun = {
        at,
        ok: false,
        seen: 0,
        created: 0,
        updated: 0,
        deactivated: 0,
        unchanged: 0,
        invalid: 0,
        ms: Math.round(performance.now() - started),
        error: (err as Error).message.slice(0, 500),
      }
      if (!dryRun) await repo.recordRun(db, row.sub_id, failed)
      throw new AppError(LDAP_ERRORS.LDAP_UNREACHABLE, {
        detail: failed,
        description: `The LDAP directory could not be read: ${failed.error}`,
      })
    }
    const { errors, ...counts } = report
    const done: LdapRun = { at, ok: true, ...counts, ms: Math.round(performance.now() - started) }
    if (!dryRun) await repo.recordRun(db, row.sub_id, done)
    return { ...done, errors }
  }

  return {
    async getSettings(subId: string): Promise<LdapSettings> {
      return toSettings(await mustFind(subId))
    },

    /** The bind password: a new one is sealed; the mask (or nothing) keeps the stored one, for the same url and bindDn only. */
    async putSettings(subId: string, body: PutLdapSettings): Promise<LdapSettings> {
      const cur = await repo.findSettings(db, subId)
      const password = body.bindPassword === undefined || body.bindPassword === MASK ? undefined : body.bindPassword
      if (!cur && password === undefined) throw invalid('bindPassword', 'bindPassword is required the first time.')
      // The stored secret goes only to the server and account it was given for.
      if (cur && password === undefined && (body.url !== cur.url || body.bindDn !== cur.bind_dn))
        throw invalid('bindPassword', 'bindPassword is required again when url or bindDn changes.')
      const now = clock.now()
      const interval = body.intervalMinutes ?? cur?.interval_minutes ?? 60
      await repo.upsertSettings(db, {
        sub_id: subId,
        enabled: body.enabled ?? true,
        url: body.url,
        bind_dn: body.bindDn,
        bind_password_sealed: password === undefined ? cur!.bind_password_sealed : seal(sealKey, password, aad(subId)),
        base_dn: body.baseDn,
        filter: body.filter ?? '(objectClass=person)',
        mapping: JSON.stringify({ ...DEFAULT_MAPPING, ...(body.mapping ?? {}) }),
        interval_minutes: interval,
        // A change of settings runs soon (the next pass), then every interval.
        next_run_at: now,
        updated_at: now,
      })
      return toSettings(await mustFind(subId))
    },

    async deleteSettings(subId: string): Promise<void> {
      if (!(await repo.deleteSettings(db, subId))) throw new AppError(LDAP_ERRORS.LDAP_NOT_CONFIGURED)
    },

    /** A sync now; `dryRun`: what it would do, written nowhere. */
    async runNow(subId: string, dryRun = false): Promise<LdapRun> {
      return run(await mustFind(subId), dryRun)
    },

    /** The syncs that are due, each claimed first so two processes never run one twice. */
    periodicTask(everyMs = 60_000): PeriodicTask {
      return {
        name: 'ldap sync',
        everyMs,
        run: async () => {
          const now = clock.now()
          for (const subId of await repo.dueSyncs(db, now, DUE_BATCH)) {
            const row = await repo.findSettings(db, subId)
            if (!row) continue
            const next = new Date(now.getTime() + row.interval_minutes * 60_000)
            if (!(await repo.claimRun(db, subId, now, next))) continue
            await run(row, false).catch((err: unknown) =>
              deps.log?.('ldap sync failed', { subId, err: err instanceof Error ? err.message : String(err) }),
            )
          }
        },
      }
    },
  }
}
