import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { DOCUMENT_PATH, generate, SCHEMA_PATH } from '../../clients/typescript/generate.js'
import { example } from '../../clients/typescript/example.js'
import { useTestApp } from '../support/use-test-app.js'

describe('the committed API description and typed client', () => {
  it('are what `npm run client:generate` makes from the routes now', { timeout: 180_000 }, async () => {
    const fresh = await generate()
    // Compared whole: a stale file is regenerated, never edited by hand.
    expect(
      readFileSync(DOCUMENT_PATH, 'utf8') === fresh.document,
      'docs/openapi.json is stale: run npm run client:generate',
    ).toBe(true)
    expect(
      readFileSync(SCHEMA_PATH, 'utf8') === fresh.schema,
      'clients/typescript/schema.d.ts is stale: run npm run client:generate',
    ).toBe(true)
  })
})

describe('the example program on the generated client', () => {
  const t = useTestApp()
  beforeAll(async () => {
    await t.app.listen({ port: 0, host: '127.0.0.1' })
  }, 180_000)

  it('gets a token, adds a package and finds it', async () => {
    const c = await t.newClient()
    const { port } = t.app.server.address() as { port: number }
    const result = await example(`http://127.0.0.1:${port}`, c.clientId, c.clientSecret)
    expect(result).toEqual({ packageId: expect.any(String), found: 1 })
  })
})
