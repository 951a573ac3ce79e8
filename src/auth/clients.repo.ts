import type { Executor } from '../db/transaction.js'
import type { ApiClient } from '../db/tables.js'

export type ClientRow = Pick<
  ApiClient,
  'client_id' | 'sub_id' | 'name' | 'secret_hash' | 'status' | 'created_at' | 'disabled_at'
>
const CLIENT_COLUMNS = ['client_id', 'sub_id', 'name', 'secret_hash', 'status', 'created_at', 'disabled_at'] as const

export async function findSubscriptionByName(
  db: Executor,
  name: string,
): Promise<{ sub_id: string; name: string } | undefined> {
  return db.selectFrom('subscriptions').select(['sub_id', 'name']).where('name', '=', name).executeTakeFirst()
}

export async function insertSubscription(db: Executor, row: { sub_id: string; name: string }): Promise<void> {
  await db
    .insertInto('subscriptions')
    .values(row)
    .onConflict((oc) => oc.column('name').doNothing())
    .execute()
}

export async function insertClient(
  db: Executor,
  row: { client_id: string; sub_id: string; name: string; secret_hash: string },
): Promise<void> {
  await db
    .insertInto('api_clients')
    .values({ ...row, status: 'active' })
    .execute()
}

export async function findClient(db: Executor, clientId: string): Promise<ClientRow | undefined> {
  return db.selectFrom('api_clients').select(CLIENT_COLUMNS).where('client_id', '=', clientId).executeTakeFirst()
}

export async function listClients(
  db: Executor,
): Promise<Array<Omit<ClientRow, 'secret_hash'> & { subscription: string }>> {
  return db
    .selectFrom('api_clients')
    .innerJoin('subscriptions', 'subscriptions.sub_id', 'api_clients.sub_id')
    .select([
      'client_id',
      'api_clients.sub_id',
      'api_clients.name',
      'status',
      'api_clients.created_at',
      'disabled_at',
      'subscriptions.name as subscription',
    ])
    .orderBy('api_clients.created_at')
    .execute()
}

export async function countClients(db: Executor): Promise<number> {
  const row = await db
    .selectFrom('api_clients')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .executeTakeFirstOrThrow()
  return Number(row.n)
}

export async function setClientStatus(
  db: Executor,
  clientId: string,
  status: 'active' | 'disabled',
  at: Date,
): Promise<boolean> {
  const result = await db
    .updateTable('api_clients')
    .set({ status, disabled_at: status === 'disabled' ? at : null })
    .where('client_id', '=', clientId)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
