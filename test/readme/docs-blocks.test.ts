import { describe, expect, it } from 'vitest'
import { docFiles, shellBlocks } from './blocks.js'

// The blocks run against a started service in the process tier (test/process/readme/walkthrough.test.ts);
// here, that each one is either run or says why not.
describe('shell blocks of docs/', () => {
  const blocks = docFiles().flatMap(shellBlocks)

  it('are ```sh, and either run as written or are marked `sh no-run: <reason>`', () => {
    for (const b of blocks) {
      const where = `${b.file}:${b.line} \`\`\`${b.info}`
      expect(b.info.split(' ')[0], where).toBe('sh')
      if (b.info !== 'sh') expect(b.noRun, where).toMatch(/^\S.{19,}/)
    }
  })

  it('include runnable ones', () => {
    expect(blocks.filter((b) => b.noRun === undefined).length).toBeGreaterThanOrEqual(4)
  })
})
