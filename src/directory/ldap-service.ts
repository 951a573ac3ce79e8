import { performance } from 'node:perf_hooks'
import type { ContactsService, SyncReport } from '../contacts/index.js'
import type { Db } from '../platform/db/database.js'
import type { PeriodicTask } from '../platform/jobs/scheduler.js'
import type { Clock } from '../platform/kit/clock.js'
import { open, seal } from '../platform/kit/crypto.js'
import { AppError, invalid, registerErrors } from '../platform/kit/errors.js'
import type { LdapSettings, PutLdapSettings } from './api/ldap-schemas.js'
import { DEFAULT_MAPPING, entryToPerson, requestedAttributes, type LdapMapping } from './model/ldap-mapping.js'
import {
  DEFAULT_MAX_DEACTIVATION_PERCENT,
  deactivationRefusal,
  describeRefusal,
  type Refusal,
} from './model/ldap-guard.js'
import type { IdGenerator } from '../platform/kit/ids.js'
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
  LDAP_RUN_IN_PROGRESS: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'DIR-4091',
    message: 'A sync of this directory is running (the schedule’s, or another request’s): try again when it ends.',
  },
  LDAP_CONFIRM_STALE: {
    status: 409,
    errorCode: 'validation_error',
    additionalCode: 'DIR-4092',
    message: 'confirmRunId is not the last run, or that run was not refused: read lastRun and confirm that one.',
  },
})

const MASK = '********'
/** Subscriptions one periodic pass syncs; the others wait for the next pass. */
const DUE_BATCH = 5
/**
 * A run's lease: renewed every RENEW_MS while it runs, so it lapses this long after a process died
 * mid-run. Longer than the longest statement of a run (the sync's transaction: seconds at 50,000
 * people), since on the embedded database a renewal waits behind it. Renewals are a liveness aid
 * only: what keeps two runs apart is the fence, the lease checked inside each write transaction.
 */
const LEASE_MS = 5 * 60_000
const RENEW_MS = 60_000

/** Thrown by the fence in the sync's write transaction: the run no longer holds its lease. */
class LeaseLost extends Error {}
const LEASE_LOST =
  'Aborted: this run lost its lease (it lapsed, or another run took it over) before it wrote; it wrote nothing. Run it again.'

export type LdapRun = LdapRunJson & Partial<Pick<SyncReport, 'errors'>>

export interface LdapDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
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
    maxDeactivationPercent: r.max_deactivation_percent,
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

  /**
   * One run: the directory read, the contacts synced unless the guard refuses (model/ldap-guard.ts),
   * the outcome recorded. `confirmed`: deactivations an admin confirmed. `holder`: the run's lease,
   * which the caller claimed (`row` read after the claim); the sync's write transaction checks it
   * first (the fence), so a run whose lease lapsed or was taken over writes nothing and is aborted.
   * A dry run has no lease and writes nothing.
   */
  async function run(row: repo.LdapSettingsRow, opts: { confirmed?: number; holder?: string }): Promise<LdapRun> {
    const { holder } = opts
    const started = performance.now()
    const at = clock.now().toISOString()
    const runId = deps.ids('ldr_')
    const mapping: LdapMapping = row.mapping
    const record = async (outcome: LdapRun) => {
      if (holder) await repo.recordRun(db, row.sub_id, outcome, { holder, after: row.last_run?.runId ?? null })
    }
    let report: SyncReport
    let refusal: Refusal | undefined
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
          dryRun: !holder,
          proceed: (plan) => !(refusal = deactivationRefusal(plan, row.max_deactivation_percent, opts.confirmed)),
          ...(holder
            ? {
                fence: async (trx) => {
                  if (!(await repo.holdsRun(trx, row.sub_id, holder))) throw new LeaseLost()
                },
              }
            : {}),
        },
      )
    } catch (err) {
      const lost = err instanceof LeaseLost
      const failed: LdapRun = {
        at,
        runId,
        ok: false,
        seen: 0,
        created: 0,
        updated: 0,
        deactivated: 0,
        unchanged: 0,
        invalid: 0,
        ms: Math.round(performance.now() - started),
        error: lost ? LEASE_LOST : (err as Error).message.slice(0, 500),
      }
      await record(failed)
      if (lost) {
        deps.log?.('ldap sync aborted: lease lost', { subId: row.sub_id, runId })
        throw new AppError(LDAP_ERRORS.LDAP_RUN_IN_PROGRESS, { detail: failed, description: LEASE_LOST })
      }
      throw new AppError(LDAP_ERRORS.LDAP_UNREACHABLE, {
        detail: failed,
        description: `The LDAP directory could not be read: ${failed.error}`,
      })
    }
    const { errors, held: _held, ...counts } = report
    const done: LdapRun = {
      at,
      runId,
      ok: refusal === undefined,
      ...counts,
      ms: Math.round(performance.now() - started),
      ...(refusal ? { refused: refusal, error: describeRefusal(refusal) } : {}),
    }
    await record(done)
    if (refusal && holder) deps.log?.('ldap sync refused', { subId: row.sub_id, ...refusal })
    return { ...done, errors }
  }

  /**
   * `work` under the run's lease, claimed as the schedule claims it (`due`: the schedule's claim);
   * undefined when someone else holds it. The lease is renewed while the work runs; the settings
   * are read again once it is held (the last run recorded before this one).
   */
  async function leased<T>(
    subId: string,
    work: (row: repo.LdapSettingsRow, holder: string) => Promise<T>,
    due?: { now: Date; next: Date },
  ): Promise<T | undefined> {
    const holder = deps.ids('lease_')
    if (!(await repo.claimRun(db, subId, { holder, ms: LEASE_MS }, due))) return undefined
    const renew = setInterval(() => {
      void repo.renewRun(db, subId, holder, LEASE_MS).catch(() => undefined)
    }, RENEW_MS)
    renew.unref()
    try {
      return await work(await mustFind(subId), holder) // deleted meanwhile: a 404, as before the claim
    } finally {
      clearInterval(renew)
      // Given back with the outcome (one write); here only when the run failed before it.
      await repo.releaseRun(db, subId, holder)
    }
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
      const percent = body.maxDeactivationPercent ?? cur?.max_deactivation_percent ?? DEFAULT_MAX_DEACTIVATION_PERCENT
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
        max_deactivation_percent: percent,
        // A change of settings runs soon (the next pass), then every interval.
        next_run_at: now,
        updated_at: now,
      })
      return toSettings(await mustFind(subId))
    },

    async deleteSettings(subId: string): Promise<void> {
      if (!(await repo.deleteSettings(db, subId))) throw new AppError(LDAP_ERRORS.LDAP_NOT_CONFIGURED)
    },

    /**
     * A sync now, under the run's lease (a 409 while another run holds it: the schedule's, or another
     * request's, in any process). `dryRun`: what it would do, written nowhere, no lease needed.
     * `confirmRunId`: the last run, refused by the guard, confirmed by an admin: this run may make
     * as many deactivations as that one would have (once: the confirmed run is no longer the last).
     */
    async runNow(subId: string, opts: { dryRun?: boolean; confirmRunId?: string } = {}): Promise<LdapRun> {
      const row = await mustFind(subId)
      let confirmed: number | undefined
      if (opts.confirmRunId !== undefined) {
        const last = row.last_run
        if (!last?.refused || last.runId !== opts.confirmRunId)
          throw new AppError(LDAP_ERRORS.LDAP_CONFIRM_STALE, { field: 'confirmRunId' })
        confirmed = last.refused.deactivations
      }
      if (opts.dryRun) return run(row, { confirmed })
      const out = await leased(subId, (current, holder) => run(current, { confirmed, holder }))
      if (!out) throw new AppError(LDAP_ERRORS.LDAP_RUN_IN_PROGRESS)
      return out
    },

    /** The syncs that are due, each claimed (the run's lease) so that no two runs of one directory overlap. */
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
            await leased(subId, (current, holder) => run(current, { holder }), { now, next }).catch((err: unknown) =>
              deps.log?.('ldap sync failed', { subId, err: err instanceof Error ? err.message : String(err) }),
            )
          }
        },
      }
    },
  }
}
