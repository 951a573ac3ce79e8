import type { Executor } from '../../platform/db/transaction.js'
import type { ApiClient } from './client-tables.js'

export type ClientRow = Pick<
  ApiClient,
  'client_id' | 'sub_id' | 'name' | 'secret_hash' | 'status' | 'created_at' | 'disabled_at' | 'secret_version'
>
const CLIENT_COLUMNS = [
  'client_id',
  'sub_id',
  'name',
  'secret_hash',
  'status',
  'created_at',
  'disabled_at',
  'secret_version',
] as const
/** What the clients API shows of a client: never the secret's hash. */
export type PublicClientRow = Pick<ApiClient, 'client_id' | 'name' | 'status' | 'created_at'>
const PUBLIC_COLUMNS = ['client_id', 'name', 'status', 'created_at'] as const

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
): Promise<Array<Omit<ClientRow, 'secret_hash' | 'secret_version'> & { subscription: string }>> {
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

/** The clients of one subscription, oldest first. */
export async function listClientsOf(db: Executor, subId: string): Promise<PublicClientRow[]> {
  return db
    .selectFrom('api_clients')
    .select(PUBLIC_COLUMNS)
    .where('sub_id', '=', subId)
    .orderBy('created_at')
    .orderBy('client_id')
    .execute()
}

/** The client of this subscription; `lock`: its row locked for the change that follows in the transaction. */
export async function findClientOf(
  db: Executor,
  subId: string,
  clientId: string,
  lock = false,
): Promise<PublicClientRow | undefined> {
  const query = db
    .selectFrom('api_clients')
    .select(PUBLIC_COLUMNS)
    .where('sub_id', '=', subId)
    .where('client_id', '=', clientId)
  return (lock ? query.forUpdate() : query).executeTakeFirst()
}

export async function renameClient(db: Executor, subId: string, clientId: string, name: string): Promise<void> {
  await db
    .updateTable('api_clients')
    .set({ name })
    .where('sub_id', '=', subId)
    .where('client_id', '=', clientId)
    .execute()
}

/** A new secret: its hash replaces the old one and the version moves on, so tokens of the old one are refused. */
export async function replaceSecret(
  db: Executor,
  subId: string,
  clientId: string,
  secretHash: string,
): Promise<boolean> {
  const result = await db
    .updateTable('api_clients')
    .set((eb) => ({ secret_hash: secretHash, secret_version: eb('secret_version', '+', 1) }))
    .where('sub_id', '=', subId)
    .where('client_id', '=', clientId)
    .executeTakeFirst()
  return Number(result.numUpdatedRows) > 0
}
