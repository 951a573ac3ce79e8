import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { useTestApp } from '../support/use-test-app.js'
import { scimCaller } from './scim-support.js'

// Two identity-provider creates of one person that both find the desk contact to adopt must not
// both adopt it: the second is a 409 (uniqueness). Left to themselves the two requests rarely
// overlap (the first has adopted before the second looks), so on PostgreSQL they are made to: a
// row lock held on another connection stops both at their write, after both read the contact as
// not yet adopted. PGlite has one connection, so there they are only sent together.
const onPostgres = Boolean(process.env.TEST_DATABASE_URL)
const t = useTestApp()

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User'
const ERROR = 'urn:ietf:params:scim:api:messages:2.0:Error'

/** Updates of contacts in this database waiting for a lock. */
const waitingUpdates = async () =>
  Number(
    (
      await sql<{ n: string }>`select count(*)::text as n from pg_stat_activity
        where datname = current_database() and wait_event_type = 'Lock'
          and query ilike 'update "contacts"%'`.execute(t.ctx.db)
    ).rows[0]!.n,
  )

/** `send` while the contact's row is locked elsewhere; released once its two updates wait for it. */
async function whileRowLocked<T>(contactId: string, send: () => Promise<T>): Promise<T> {
  let release!: () => void
  const released = new Promise<void>((r) => (release = r))
  let locked!: () => void
  const isLocked = new Promise<void>((r) => (locked = r))
  const holder = t.ctx.db.transaction().execute(async (trx) => {
    await sql`select 1 from contacts where contact_id = ${contactId} for update`.execute(trx)
    locked()
    await released
  })
  await isLocked
  const sent = send()
  try {
    // Both read the contact (no lock needed) and now wait to write it; as long as the test may take.
    await expect.poll(waitingUpdates, { timeout: 25_000, interval: 20 }).toBe(2)
    release()
    return await sent
  } finally {
    release()
    await holder
    await sent.catch(() => undefined) // a failed poll leaves no request running after the test
  }
}

it(
  onPostgres
    ? 'lets one of two overlapping creates adopt the desk contact; the other, which read it unadopted too, gets a 409 (PostgreSQL)'
    : 'answers two creates of one desk contact sent together with one adoption and a 409 (PGlite)',
  async () => {
    const c = await t.newClient()
    const scim = await scimCaller(t, c)
    const desk = await t.inject({
      method: 'POST',
      url: '/api/v1/contacts',
      headers: c.auth,
      payload: { contactType: 'RECEIVER', name: 'Cy Desk', email: 'cy@example.com' },
    })
    expect(desk.statusCode, desk.body).toBe(201)
    const contactId = desk.json().contactId as string
    const create = () =>
      scim.call('POST', '/Users', {
        schemas: [USER],
        userName: 'cy@example.com',
        emails: [{ value: 'cy@example.com', primary: true }],
      })
    const both = () => Promise.all([create(), create()])
    const answers = onPostgres ? await whileRowLocked(contactId, both) : await both()

    expect(answers.map((r) => r.statusCode).sort(), answers.map((r) => r.body).join('\n')).toEqual([201, 409])
    expect(answers.find((r) => r.statusCode === 201)!.json().id).toBe(contactId)
    expect(answers.find((r) => r.statusCode === 409)!.json()).toMatchObject({
      schemas: [ERROR],
      status: '409',
      scimType: 'uniqueness',
    })
    expect((await scim.ok('GET', `/Users/${contactId}`)).userName).toBe('cy@example.com')
    expect((await scim.ok('GET', '/Users')).totalResults).toBe(1)
  },
)
