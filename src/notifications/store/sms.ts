import { sql } from 'kysely'
import type { Executor } from '../../platform/db/transaction.js'
import type { NotificationChannel, NotificationKind } from '../model/kinds.js'
import type { ChannelChoices } from '../model/channels.js'
import './tables.js'

// The texts' own tables (migration 0068): the facility's provider and channels, each recipient's
// channels and consent, the numbers that said STOP, the replies seen; and the text rows' receipts.

export interface SmsSettingsRow {
  sub_id: string
  provider: 'none' | 'messages' | 'smpp'
  url: string | null
  account: string | null
  secret_sealed: string | null
  from_number: string | null
  sender_name: string | null
  channels: ChannelChoices
  quiet_start: string | null
  quiet_end: string | null
  updated_at: Date
}

const SETTINGS = [
  'sub_id',
  'provider',
  'url',
  'account',
  'secret_sealed',
  'from_number',
  'sender_name',
  'channels',
  'quiet_start',
  'quiet_end',
  'updated_at',
] as const

export async function findSmsSettings(db: Executor, subId: string): Promise<SmsSettingsRow | undefined> {
  return db.selectFrom('notification_sms_settings').select(SETTINGS).where('sub_id', '=', subId).executeTakeFirst()
}

/** Every facility with an SMPP provider: the sessions kept bound for their replies and receipts. */
export async function smppSubscriptions(db: Executor): Promise<SmsSettingsRow[]> {
  return db.selectFrom('notification_sms_settings').select(SETTINGS).where('provider', '=', 'smpp').execute()
}

export async function upsertSmsSettings(db: Executor, row: SmsSettingsRow): Promise<void> {
  const values = { ...row, channels: JSON.stringify(row.channels) }
  const { sub_id: _sub, ...set } = values
  await db
    .insertInto('notification_sms_settings')
    .values(values)
    .onConflict((oc) => oc.column('sub_id').doUpdateSet(set))
    .execute()
}

export interface RecipientChannelsRow {
  sub_id: string
  contact_id: string
  kinds: Partial<Record<NotificationKind, NotificationChannel[]>>
  sms_opt_in_at: Date | null
  sms_opt_in_source: string | null
  updated_at: Date
}

export async function findRecipientChannels(
  db: Executor,
  subId: string,
  contactId: string,
): Promise<RecipientChannelsRow | undefined> {
  return db
    .selectFrom('notification_recipient_channels')
    .select(['sub_id', 'contact_id', 'kinds', 'sms_opt_in_at', 'sms_opt_in_source', 'updated_at'])
    .where('sub_id', '=', subId)
    .where('contact_id', '=', contactId)
    .executeTakeFirst()
}

export async function upsertRecipientChannels(db: Executor, row: RecipientChannelsRow): Promise<void> {
  const values = { ...row, kinds: JSON.stringify(row.kinds) }
  const { sub_id: _s, contact_id: _c, ...set } = values
  await db
    .insertInto('notification_recipient_channels')
    .values(values)
    .onConflict((oc) => oc.columns(['sub_id', 'contact_id']).doUpdateSet(set))
    .execute()
}

export interface SmsStop {
  stopped: boolean
  keyword: string
  changed_at: Date
}

export async function findStop(db: Executor, subId: string, phone: string): Promise<SmsStop | undefined> {
  return db
    .selectFrom('notification_sms_stops')
    .select(['stopped', 'keyword', 'changed_at'])
    .where('sub_id', '=', subId)
    .where('phone', '=', phone)
    .executeTakeFirst()
}

/** STOP (stopped) or START (not): the number's latest word, at once for every text not yet sent. */
export async function recordStop(
  db: Executor,
  row: { sub_id: string; phone: string; stopped: boolean; keyword: string; changed_at: Date },
): Promise<void> {
  await db
    .insertInto('notification_sms_stops')
    .values(row)
    .onConflict((oc) =>
      oc
        .columns(['sub_id', 'phone'])
        .doUpdateSet({ stopped: row.stopped, keyword: row.keyword, changed_at: row.changed_at }),
    )
    .execute()
}

/** A reply seen for the first time (true), or the provider's retry of one already handled (false). */
export async function recordInbound(
  db: Executor,
  row: { sub_id: string; message_id: string; phone: string; body: string; received_at: Date },
): Promise<boolean> {
  const r = await db
    .insertInto('notification_sms_inbound')
    .values({ ...row, body: row.body.slice(0, 1600) })
    .onConflict((oc) => oc.columns(['sub_id', 'message_id']).doNothing())
    .returning('message_id')
    .executeTakeFirst()
  return r !== undefined
}

/**
 * A reply known by its content only (an SMPP deliver_sm without an SMSC id): the same content is
 * the SMSC's re-delivery while it is still that number's latest reply and was seen after `since`;
 * otherwise it is a new message (STOP, then START, then STOP again: the second STOP counts).
 * `db` is a transaction: the number's lock, held to its end, makes two re-deliveries arriving at
 * once read one after the other (the second sees the first's reply), so only one counts.
 */
export async function recordInboundByContent(
  db: Executor,
  row: { sub_id: string; message_id: string; phone: string; body: string; received_at: Date },
  since: Date,
): Promise<boolean> {
  // Class 727005 beside the service's other advisory locks (727001-727004).
  await sql`select pg_advisory_xact_lock(727005, hashtext(${row.sub_id} || E'\n' || ${row.phone}))`.execute(db)
  const latest = await db
    .selectFrom('notification_sms_inbound')
    .select(['message_id', 'received_at'])
    .where('sub_id', '=', row.sub_id)
    .where('phone', '=', row.phone)
    .orderBy('received_at', 'desc')
    .limit(1)
    .executeTakeFirst()
  if (latest?.message_id === row.message_id && latest.received_at > since) return false
  const body = row.body.slice(0, 1600)
  await db
    .insertInto('notification_sms_inbound')
    .values({ ...row, body })
    .onConflict((oc) => oc.columns(['sub_id', 'message_id']).doUpdateSet({ received_at: row.received_at, body }))
    .execute()
  return true
}

/**
 * A text beside its parent's email (the recipient chose both): one per notification
 * (notifications_parent_uq), so a parent claimed again after a crash adds no second text.
 */
export async function insertTextOf(
  db: Executor,
  parent: { notification_id: string; sub_id: string; kind: NotificationKind; contact_id: string; step: number },
  child: { notification_id: string; to: string; now: Date },
): Promise<void> {
  await db
    .insertInto('notifications')
    .values({
      notification_id: child.notification_id,
      sub_id: parent.sub_id,
      kind: parent.kind,
      channel: 'sms',
      contact_id: parent.contact_id,
      to_address: child.to,
      step: parent.step,
      status: 'pending',
      attempts: 0,
      last_error: null,
      next_attempt_at: child.now,
      locked_until: null,
      locked_by: null,
      sent_at: null,
      created_at: child.now,
      updated_at: child.now,
      parent_id: parent.notification_id,
    })
    .onConflict((oc) => oc.column('parent_id').where('parent_id', 'is not', null).doNothing())
    .execute()
}

/** The text queued beside an email (its child), if there is one: an email that has one never becomes a text itself. */
export async function findTextOf(
  db: Executor,
  subId: string,
  parentId: string,
): Promise<{ notification_id: string; status: string } | undefined> {
  return db
    .selectFrom('notifications')
    .select(['notification_id', 'status'])
    .where('sub_id', '=', subId)
    .where('parent_id', '=', parentId)
    .executeTakeFirst()
}

/** The provider's id of a text, recorded the moment it accepted it (before the outcome's transaction). */
export async function recordProviderId(db: Executor, notificationId: string, messageId: string): Promise<void> {
  await db
    .updateTable('notifications')
    .set({ provider_message_id: messageId })
    .where('notification_id', '=', notificationId)
    .execute()
}

/** A delivery receipt: the text's delivery status (the latest word wins; 'delivered' is never undone). */
export async function recordReceipt(
  db: Executor,
  subId: string,
  messageId: string,
  receipt: { status: string; at: Date; error?: string },
): Promise<string | undefined> {
  const r = await db
    .updateTable('notifications')
    .set({
      delivery_status: receipt.status,
      delivered_at: receipt.status === 'delivered' ? receipt.at : null,
      updated_at: receipt.at,
      ...(receipt.error ? { last_error: receipt.error.slice(0, 500) } : {}),
    })
    .where('sub_id', '=', subId)
    .where('provider_message_id', '=', messageId)
    .where(sql<boolean>`coalesce(delivery_status, '') <> 'delivered'`)
    .returning('notification_id')
    .executeTakeFirst()
  return r?.notification_id
}
