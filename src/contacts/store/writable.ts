import { sql, type Expression } from 'kysely'

/**
 * SQL for another domain's statement (the notifications' arrival batches): one row with the email
 * of the contact when it can be written to (not deleted, not a sender), none otherwise. The
 * contacts domain's one definition of a recipient a notification may go to; a primary-key probe,
 * meant for a lateral join on the caller's side.
 */
export const writableRecipient = (subId: Expression<string>, contactId: Expression<string>) =>
  sql<{ email: string | null }>`select c.email from contacts c
    where c.sub_id = ${subId} and c.contact_id = ${contactId} and c.deleted_at is null and c.contact_type <> 'SENDER'`
