import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { docFiles, ROOT } from './blocks.js'

const linksOf = (file: string) =>
  [...readFileSync(path.join(ROOT, file), 'utf8').matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!)

// The walk-through itself runs against a started service, in the process tier (test/process/readme).
describe('README', () => {
  it('links only to files of the repository', () => {
    const links = linksOf('README.md')
    expect(links.length).toBeGreaterThan(0)
    for (const link of links) {
      expect(link, link).not.toMatch(/^[a-z]+:|^\/\/|^\.\.\//)
      expect(existsSync(path.join(ROOT, link.split('#')[0]!)), link).toBe(true)
    }
    expect(readFileSync(path.join(ROOT, 'README.md'), 'utf8')).not.toMatch(/\.\.\/shared/)
  })

  it('is at most 300 lines, and every page of docs/ is linked from it', () => {
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8')
    expect(readme.split('\n').length).toBeLessThanOrEqual(300)
    for (const file of docFiles()) expect(linksOf('README.md'), file).toContain(file)
  })
})

describe('docs/', () => {
  it("links to the repository's files by paths that exist", () => {
    for (const file of docFiles())
      for (const link of linksOf(file).filter((l) => !/^[a-z]+:|^#/.test(l)))
        expect(existsSync(path.join(ROOT, 'docs', link.split('#')[0]!)), `${file}: ${link}`).toBe(true)
  })
})
