import type { Db } from '../platform/db/database.js'
import { inTransaction, type Executor } from '../platform/db/transaction.js'
import type { Clock } from '../platform/kit/clock.js'
import { AppError, registerErrors, ValidationErrors } from '../platform/kit/errors.js'
import type { IdGenerator } from '../platform/kit/ids.js'
import type { Invalidations } from '../platform/cache/invalidations.js'
import { SubscriptionCache } from '../platform/cache/subscription-cache.js'
import type { CustomFieldDef } from './model/custom-field-values.js'
import * as repo from './store/customfields.js'
import type {
  CreateCustomField,
  CustomField,
  DataType,
  ListCustomFieldsQuery,
  UpdateCustomField,
} from './api/schemas.js'
import { writeRecorded, type RecordOutcome } from '../platform/idempotency/outcome.js'

export { checkCustomFieldValues, type CustomFieldDef } from './model/custom-field-values.js'

export const CUSTOM_FIELD_ERRORS = registerErrors({
  CUSTOM_FIELD_NOT_FOUND: {
    status: 404,
    errorCode: 'not_found',
    additionalCode: 'CFD-4040',
    message: 'No such custom field.',
  },
  CUSTOM_FIELD_NAME_TAKEN: {
    status: 409,
    errorCode: 'already_exists',
    additionalCode: 'CFD-4090',
    message: 'A custom field with this name already exists.',
  },
})

export interface CustomFieldsServiceDeps {
  db: Db
  clock: Clock
  ids: IdGenerator
  /** How long the definitions are remembered per subscription (see SubscriptionCache); 0: not at all. */
  cacheMs?: number
  /** Tells the other processes of the deployment that a subscription's definitions changed. */
  invalidations: Invalidations
}

function toCustomField(r: repo.CustomFieldRow): CustomField {
  const out: CustomField = {
    customFieldId: r.custom_field_id,
    name: r.name,
    status: r.status,
    dataType: r.data_type,
    required: r.required,
  }
  if (r.data_type === 'LIST') out.options = r.options ?? []
  return out
}

function isUniqueViolation(e: unknown): boolean {
  return typeof e === 'object' && e !== null && (e as { code?: string }).code === '23505'
}

/** Options only for LIST, where at least one is needed and none may repeat (ignoring case). */
function checkedOptions(dataType: DataType, options: string[] | null | undefined, given: boolean): string[] | null {
  const problems: Array<{ field: string; description: string }> = []
  const trimmed = options?.map((o) => o.trim()) ?? null
  if (dataType !== 'LIST') {
    if (given && trimmed !== null && trimmed.length > 0)
      problems.push({ field: 'options', description: 'options apply only to LIST fields' })
  } else if (trimmed === null || trimmed.length === 0) {
    problems.push({ field: 'options', description: 'A LIST field needs at least one option' })
  } else {
    const seen = new Set<string>()
    trimmed.forEach((o, i) => {
      if (seen.has(o.toLowerCase()))
        problems.push({
          field: `options[${i}]`,
          description: `Option "${o}" is listed twice (options are compared ignoring case)`,
        })
      seen.add(o.toLowerCase())
    })
  }
  if (problems.length > 0) throw new ValidationErrors(problems)
  return dataType === 'LIST' ? trimmed : null
}

export type CustomFieldsService = ReturnType<typeof createCustomFieldsService>

export function createCustomFieldsService(deps: CustomFieldsServiceDeps) {
  const { db, clock, ids } = deps
  const definitions = new SubscriptionCache<readonly CustomFieldDef[]>(clock, deps.cacheMs ?? 0)
  deps.invalidations.on('customfields', definitions.drop)
  /** Within the write's transaction: the other processes forget the definitions once it commits. */
  const announce = (ex: Executor, subId: string) => deps.invalidations.announce(ex, 'customfields', subId)
  /** Runs a write of the subscription's definitions, then forgets what the cache holds of them. */
  const changing = <T>(subId: string, write: () => Promise<T>): Promise<T> =>
    write().finally(() => definitions.invalidate(subId))

  /** The partial unique index on (sub_id, lower(name)) decides, so two concurrent creates cannot both win. */
  async function nameGuard<T>(work: () => Promise<T>): Promise<T> {
    try {
      return await work()
    } catch (e) {
      if (isUniqueViolation(e))
        throw new AppError(CUSTOM_FIELD_ERRORS.CUSTOM_FIELD_NAME_TAKEN, { field: 'name', detail: e })
      throw e
    }
  }

  return {
    async createCustomField(
      subId: string,
      input: CreateCustomField,
      outcome?: RecordOutcome<CustomField>,
    ): Promise<CustomField> {
      const options = checkedOptions(input.dataType, input.options, input.options !== undefined)
      const row: repo.CustomFieldRow = {
        custom_field_id: ids('cf_'),
        sub_id: subId,
        name: input.name.trim(),
        status: input.status ?? 'ACTIVE',
        data_type: input.dataType,
        required: input.required ?? false,
        options,
        created_at: clock.now(),
        updated_at: clock.now(),
        deleted_at: null,
      }
      return changing(subId, () =>
        nameGuard(() =>
          writeRecorded(db, outcome, toCustomField(row), async (ex) => {
            await repo.insertCustomField(ex, { ...row, at: row.created_at })
            await announce(ex, subId)
          }),
        ),
      )
    },

    async getCustomField(subId: string, id: string): Promise<CustomField> {
      const row = await repo.findCustomField(db, subId, id)
      if (!row) throw new AppError(CUSTOM_FIELD_ERRORS.CUSTOM_FIELD_NOT_FOUND, { detail: { id } })
      return toCustomField(row)
    },

    /**
     * Merges like the other companions' PUT. Values already stored on packages are not rewritten:
     * a changed type or option list applies to values written from now on.
     */
    async updateCustomField(subId: string, id: string, input: UpdateCustomField): Promise<CustomField> {
      return changing(subId, () =>
        nameGuard(() =>
          inTransaction(db, async (trx) => {
            const cur = await repo.findCustomField(trx, subId, id, { forUpdate: true })
            if (!cur) throw new AppError(CUSTOM_FIELD_ERRORS.CUSTOM_FIELD_NOT_FOUND, { detail: { id } })
            const dataType = input.dataType ?? cur.data_type
            // Leaving LIST drops the options unless new ones are given (and then they are refused).
            const options = checkedOptions(
              dataType,
              input.options !== undefined ? input.options : cur.options,
              input.options !== undefined,
            )
            const next: repo.CustomFieldRow = {
              ...cur,
              name: input.name?.trim() ?? cur.name,
              status: input.status ?? cur.status,
              data_type: dataType,
              required: input.required ?? cur.required,
              options,
              updated_at: clock.now(),
            }
            await repo.updateCustomField(trx, subId, id, {
              name: next.name,
              status: next.status,
              data_type: next.data_type,
              required: next.required,
              options,
              at: next.updated_at,
            })
            await announce(trx, subId)
            return toCustomField(next)
          }),
        ),
      )
    },

    /** Soft delete: packages keep their stored values; the name becomes free for a new field. */
    async deleteCustomField(subId: string, id: string): Promise<void> {
      await changing(subId, () =>
        inTransaction(db, async (trx) => {
          if (!(await repo.findCustomField(trx, subId, id, { forUpdate: true })))
            throw new AppError(CUSTOM_FIELD_ERRORS.CUSTOM_FIELD_NOT_FOUND, { detail: { id } })
          await repo.softDeleteCustomField(trx, subId, id, clock.now())
          await announce(trx, subId)
        }),
      )
    },

    async listCustomFields(
      subId: string,
      q: ListCustomFieldsQuery,
    ): Promise<{ customFields: CustomField[]; totalCount: number }> {
      const { rows, total } = await repo.listCustomFields(
        db,
        { subId, status: q.status },
        { skip: q.skip, limit: q.limit },
      )
      return { customFields: rows.map(toCustomField), totalCount: total }
    },

    /** Every live definition (ACTIVE and INACTIVE), for validating and showing package values. */
    async listDefinitions(subId: string): Promise<readonly CustomFieldDef[]> {
      return definitions.get(subId, async () =>
        Object.freeze((await repo.listCustomFields(db, { subId })).rows.map((r) => Object.freeze(toCustomField(r)))),
      )
    },
  }
}
