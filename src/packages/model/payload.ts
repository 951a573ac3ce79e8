import { Type, type TSchema } from '@sinclair/typebox'
import { plainReader, type EventSource } from './field-kinds.js'
import { FIELD_ENTRIES, lit } from './fields.js'
import { PACKAGE_STATUSES } from './statuses.js'

/**
 * The data of a package's outbox events (the `data` of a webhook notification), built from the
 * registry's `event` members (fields.ts), and its schema, which the OpenAPI document publishes as
 * the component PackageEventData.
 */

type EventValue = (s: EventSource) => unknown
const MEMBERS: ReadonlyArray<{ name: string; schema: TSchema; value: EventValue }> = FIELD_ENTRIES.flatMap(
  ([name, f]) => {
    if (!f.event) return []
    if (f.event !== true) return [{ name, schema: f.event.schema, value: f.event.value }]
    if (!f.value || !f.column) throw new Error(`package field ${name}: event true needs a plain column`)
    const read = plainReader(f.value, f.column) as (r: unknown) => unknown
    return [{ name, schema: f.record, value: (s: EventSource) => read(s.row) }]
  },
)

export const PackageEventDataSchema = Type.Object(
  {
    ...Object.fromEntries(MEMBERS.map((m) => [m.name, m.schema])),
    previousStatus: Type.Union([lit(PACKAGE_STATUSES), Type.Null()], {
      description: 'The status before the change; null for the add.',
    }),
    sequence: Type.Integer({ minimum: 1, description: "Orders one package's events, across both variants." }),
    depositedAt: Type.Optional(
      Type.String({
        format: 'date-time',
        description: 'Locker reminders and expiries: when the package was deposited.',
      }),
    ),
  },
  {
    title: 'PackageEventData',
    description: 'The `data` of a package event: the package as the change left it.',
    additionalProperties: false,
  },
)

/** The data of one event of a change (`sequence`: the event's number for its package). */
export function eventData(
  source: EventSource,
  previousStatus: string | null,
  sequence: number,
): Record<string, unknown> {
  const data: Record<string, unknown> = {}
  for (const m of MEMBERS) {
    const v = m.value(source)
    if (v !== undefined) data[m.name] = v
  }
  data.previousStatus = previousStatus
  data.sequence = sequence
  return data
}
