import type { Updateable } from 'kysely'
import type { Db } from '../platform/db/database.js'
import { inTransaction, type Trx } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import { configStats } from './store/attempts.js'
import * as repo from './store/configs.js'
import { limitReached } from '../platform/fairness/quotas.js'
import type { ConfigBody, ConfigView } from './api/configs-schemas.js'
import { validateConfigBody, type ConfigInput } from './model/validate-config.js'
import {
  looksMasked,
  mask,
  openAuthSecret,
  openSigningSecret,
  SECRET_FIELD,
  sealAuthSecret,
  sealSigningSecret,
} from './delivery/credentials.js'
import { cancelPending, failIdlePending } from './store/deliveries.js'
import type { DestinationRules } from './delivery/destination.js'
import { newSigningSecret } from './delivery/sign.js'
import { WEBHOOK_ERRORS } from './model/errors.js'
import type { WebhookVariant } from '../events/index.js'
import type { WebhookConfigRow, WebhookConfigTable } from './store/tables.js'
import type { RecordOutcome } from '../platform/idempotency/outcome.js'

export interface ConfigsServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  sealKey: Buffer
  rules: DestinationRules
  /** Configurations one subscription may have, both variants together (issue 14.4); absent: no bound. */
  maxConfigs?: number
}

/** After a rotation the previous signing secret keeps signing this long, so receivers can switch without losing a notification. */
export const ROTATION_OVERLAP_MS = 24 * 3600_000

/** What of a stored secret's destination an update changes (url, tokenUrl, authType), if anything. */
function destinationChange(current: WebhookConfigRow, input: ConfigInput): string | undefined {
  if (current.auth_type !== input.auth.type) return 'authType'
  if (current.url !== input.url) return 'url'
  if ((current.auth_public.tokenUrl ?? undefined) !== input.auth.public.tokenUrl) return 'authParams.tokenUrl'
  return undefined
}

export type ConfigsService = ReturnType<typeof createConfigsService>

export function createConfigsService(deps: ConfigsServiceDeps) {
  const { db, clock, ids, sealKey, rules } = deps

  function view(
    row: WebhookConfigRow,
    opts: { signingSecret?: string; stats?: { lastDeliveryAt: Date | null; failureCount: number } } = {},
  ): ConfigView {
    const field = SECRET_FIELD[row.auth_type]
    const secret = row.auth_secret_sealed ? openAuthSecret(sealKey, row.config_id, row.auth_secret_sealed) : undefined
    const now = clock.now()
    const out: ConfigView = {
      webHookConfigID: row.config_id,
      name: row.name,
      type: row.variant,
      events: row.events,
      url: row.url,
      timeOut: row.timeout_seconds,
      status: row.status,
      authParams: {
        authType: row.auth_type,
        ...row.auth_public,
        ...(field && secret !== undefined ? { [field]: mask(secret) } : {}),
      },
      signingSecret:
        opts.signingSecret ?? mask(openSigningSecret(sealKey, row.config_id, row.signing_secret_sealed, 'current')),
      createdAt: row.created_at.toISOString(),
      updatedAt: row.updated_at.toISOString(),
    }
    if (row.previous_secret_expires_at && row.previous_secret_expires_at > now)
      out.previousSecretExpiresAt = row.previous_secret_expires_at.toISOString()
    if (row.status === 'in-active' && row.disabled_reason) out.disabledReason = row.disabled_reason
    if (row.status === 'in-active' && row.disabled_at) out.disabledAt = row.disabled_at.toISOString()
    if (opts.stats) {
      out.lastDeliveryAt = opts.stats.lastDeliveryAt?.toISOString() ?? null
      out.failureCount = opts.stats.failureCount
      if (row.failing_since) out.failingSince = row.failing_since.toISOString()
    }
    return out
  }

  /**
   * The sealed credential to store: the stored one when the client sent back exactly the mask a
   * response showed for it and the secret would still go where it went before, else the value
   * sent, sealed. A new url, tokenUrl or authType needs the secret itself: otherwise anyone who can
   * edit a configuration could redirect a stored credential they never knew to their own server.
   */
  function credential(configId: string, input: ConfigInput, current?: WebhookConfigRow): string | null {
    const auth = input.auth
    const field = SECRET_FIELD[auth.type]
    if (!field || auth.secret === undefined) return null
    const moved = current ? destinationChange(current, input) : undefined
    const stored = current?.auth_secret_sealed && !moved ? current.auth_secret_sealed : undefined
    if (stored && mask(openAuthSecret(sealKey, configId, stored)) === auth.secret) return stored
    if (!looksMasked(auth.secret)) return sealAuthSecret(sealKey, configId, auth.secret)
    throw new ValidationErrors([
      {
        field: `authParams.${field}`,
        code: WEBHOOK_ERRORS.WEBHOOK_AUTH_INVALID,
        description: moved
          ? `authParams.${field} is a masked value, and the ${moved} changed: send the secret itself`
          : `authParams.${field} is a masked value that matches no stored secret; send the secret itself`,
      },
    ])
  }

  async function loadForUpdate(
    trx: Trx,
    subId: string,
    variant: WebhookVariant,
    configId: string,
  ): Promise<WebhookConfigRow> {
    const row = await repo.findConfig(trx, subId, variant, configId, { forUpdate: true })
    if (!row) throw new AppError(WEBHOOK_ERRORS.WEBHOOK_CONFIG_NOT_FOUND)
    return row
  }

  async function reread(trx: Trx, subId: string, variant: WebhookVariant, configId: string): Promise<WebhookConfigRow> {
    return (await repo.findConfig(trx, subId, variant, configId))!
  }

  return {
    async create(
      subId: string,
      variant: WebhookVariant,
      body: ConfigBody,
      outcome?: RecordOutcome<ConfigView>,
    ): Promise<ConfigView> {
      const input = await validateConfigBody(body, rules)
      const now = clock.now()
      const configId = ids('whk_')
      const signingSecret = newSigningSecret()
      const row = {
        config_id: configId,
        sub_id: subId,
        variant,
        name: input.name,
        url: input.url,
        events: input.events,
        timeout_seconds: input.timeoutSeconds,
        status: input.status,
        auth_type: input.auth.type,
        auth_public: JSON.stringify(input.auth.public),
        auth_secret_sealed: credential(configId, input),
        signing_secret_sealed: sealSigningSecret(sealKey, configId, signingSecret, 'current'),
        created_at: now,
        updated_at: now,
      }
      // The count and the insert in one transaction, serialised per subscription: two creates racing at
      // the bound cannot both pass. With an Idempotency-Key the answer (the one showing the signing
      // secret in full) is stored with the row.
      return inTransaction(db, async (trx) => {
        if (deps.maxConfigs !== undefined) {
          await repo.lockSubscriptionConfigs(trx, subId)
          if ((await repo.countConfigs(trx, subId)) >= deps.maxConfigs)
            throw limitReached(
              `${deps.maxConfigs} webhook configurations per subscription`,
              `This subscription has ${deps.maxConfigs} webhook configurations, the most it may: delete one first.`,
            )
        }
        await repo.insertConfig(trx, row)
        const created = view((await repo.findConfig(trx, subId, variant, configId))!, { signingSecret })
        await outcome?.(trx, created)
        return created
      })
    },

    async list(subId: string, variant: WebhookVariant): Promise<ConfigView[]> {
      return (await repo.listConfigs(db, subId, variant)).map((r) => view(r))
    },

    async get(subId: string, variant: WebhookVariant, configId: string): Promise<ConfigView> {
      const row = await repo.findConfig(db, subId, variant, configId)
      if (!row) throw new AppError(WEBHOOK_ERRORS.WEBHOOK_CONFIG_NOT_FOUND)
      return view(row, { stats: await configStats(db, subId, configId, row.failing_since) })
    },

    /**
     * Replaces the configuration; the worker reads url, auth, timeOut and events when it sends, so
     * the change applies to the next notification. Pending deliveries of events no longer
     * subscribed, or of a configuration set in-active, are failed (retry them once re-enabled).
     */
    async update(subId: string, variant: WebhookVariant, configId: string, body: ConfigBody): Promise<ConfigView> {
      const input = await validateConfigBody(body, rules)
      const now = clock.now()
      return inTransaction(db, async (trx) => {
        const current = await loadForUpdate(trx, subId, variant, configId)
        const set: Updateable<WebhookConfigTable> = {
          name: input.name,
          url: input.url,
          events: input.events,
          timeout_seconds: input.timeoutSeconds,
          status: input.status,
          auth_type: input.auth.type,
          auth_public: JSON.stringify(input.auth.public),
          auth_secret_sealed: credential(configId, input, current),
          updated_at: now,
        }
        // Enabling by hand starts afresh: the failure streak and the reason it was disabled are gone.
        if (input.status === 'active' && current.status !== 'active')
          Object.assign(set, { disabled_reason: null, disabled_at: null, failing_since: null, last_failure_at: null })
        const deactivated = input.status === 'in-active' && current.status === 'active'
        const dropped = current.events.some((e) => !input.events.includes(e))
        // A delivery in flight now is left to its worker, and may come back pending: the sweep closes it.
        if (deactivated || dropped) set.sweep_requested_at = now
        await repo.updateConfig(trx, subId, configId, set)
        if (deactivated) await failIdlePending(trx, subId, configId, now, 'configuration set in-active')
        else if (dropped) await failIdlePending(trx, subId, configId, now, 'event no longer subscribed', input.events)
        return view(await reread(trx, subId, variant, configId))
      })
    },

    /** Nothing is sent afterwards; pending deliveries are cancelled in the same transaction. */
    async remove(subId: string, variant: WebhookVariant, configId: string): Promise<void> {
      await inTransaction(db, async (trx) => {
        if (!(await repo.softDeleteConfig(trx, subId, variant, configId, clock.now())))
          throw new AppError(WEBHOOK_ERRORS.WEBHOOK_CONFIG_NOT_FOUND)
        await cancelPending(trx, subId, configId, clock.now())
      })
    },

    /** A new signing secret, shown once; the previous one keeps signing alongside for ROTATION_OVERLAP_MS. */
    async rotateSecret(subId: string, variant: WebhookVariant, configId: string): Promise<ConfigView> {
      const now = clock.now()
      return inTransaction(db, async (trx) => {
        const current = await loadForUpdate(trx, subId, variant, configId)
        const previous = openSigningSecret(sealKey, configId, current.signing_secret_sealed, 'current')
        const fresh = newSigningSecret()
        await repo.updateConfig(trx, subId, configId, {
          signing_secret_sealed: sealSigningSecret(sealKey, configId, fresh, 'current'),
          previous_secret_sealed: sealSigningSecret(sealKey, configId, previous, 'previous'),
          previous_secret_expires_at: new Date(now.getTime() + ROTATION_OVERLAP_MS),
          updated_at: now,
        })
        return view(await reread(trx, subId, variant, configId), { signingSecret: fresh })
      })
    },
  }
}
