import { describe, expect, it } from 'vitest'
import { renderFormatTable } from '../../src/decode/format-table.js'
import { ALL_RULES } from '../../src/decode/tracking/identify.js'
import { CARRIER_CODES } from '../../src/decode/tables/carriers.js'

describe('docs/tracking-formats.md', () => {
  it("is the table the decoder's rules render (update with -u after changing a rule)", async () => {
    await expect(renderFormatTable()).toMatchFileSnapshot('../../docs/tracking-formats.md')
  })

  it('documents every rule and names every carrier the decoder can name', () => {
    for (const rule of ALL_RULES) expect(rule.formats.length).toBeGreaterThan(0)
    const documented = new Set(ALL_RULES.flatMap((r) => r.formats.flatMap((f) => [f.carrier, ...(f.alsoRead ?? [])])))
    for (const code of CARRIER_CODES) expect(documented.has(code), code).toBe(true)
  })
})
