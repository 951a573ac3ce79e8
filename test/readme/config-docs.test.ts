import { readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../src/app/config.js'
import { EnvSchema } from '../../src/app/settings/index.js'
import { renderConfigTables, renderEnvExample, withConfigTables } from '../../src/app/settings/render.js'

const ROOT = path.resolve(import.meta.dirname, '../..')
const read = (file: string) => readFileSync(path.join(ROOT, file), 'utf8')

// Both files are generated from src/app/settings; a stale one means someone edited a table and not the docs.
describe('generated configuration docs', () => {
  it('.env.example is what `npm run config:docs` writes', () => {
    expect(read('.env.example'), 'run npm run config:docs').toBe(renderEnvExample())
  })

  it("docs/configuration.md's tables are what `npm run config:docs` writes", () => {
    const page = read('docs/configuration.md')
    expect(page, 'run npm run config:docs').toBe(withConfigTables(page))
    expect(page).toContain(renderConfigTables())
  })

  it('name every key once, and .env.example as written loads the same configuration as no environment', () => {
    const example = read('.env.example')
    const assigned = [...example.matchAll(/^([A-Z0-9_]+)=(.*)$/gm)].map((m) => [m[1]!, m[2]!] as const)
    expect(assigned.map(([k]) => k).sort()).toEqual(Object.keys(EnvSchema.properties).sort())
    const page = read('docs/configuration.md')
    for (const key of Object.keys(EnvSchema.properties)) expect(page).toContain(`| \`${key}\` |`)
    // Same directory, so the resolved data dir matches.
    expect(loadConfig(Object.fromEntries(assigned))).toEqual(loadConfig({}))
  })
})
