import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'

const ROOT = path.resolve(import.meta.dirname, '../..')
const README = readFileSync(path.join(ROOT, 'README.md'), 'utf8')

// The walk-through itself runs against a started service, in the process tier (test/process/readme).
describe('README', () => {
  it('links only to files of the repository', () => {
    const links = [...README.matchAll(/\]\(([^)]+)\)/g)].map((m) => m[1]!)
    expect(links.length).toBeGreaterThan(0)
    for (const link of links) {
      expect(link, link).not.toMatch(/^[a-z]+:|^\/\/|^\.\.\//)
      expect(existsSync(path.join(ROOT, link.split('#')[0]!)), link).toBe(true)
    }
    expect(README).not.toMatch(/\.\.\/shared/)
  })
})
