import { CARRIER_CODES, CARRIERS, CARRIER_NAMES, type CarrierCode } from './tables/carriers.js'
import { S10_POSTS } from './tables/s10-posts.js'
import { CHECKS, type FormatDoc } from './tracking/format-doc.js'
import { ALL_RULES } from './tracking/identify.js'

/**
 * docs/tracking-formats.md, rendered from the rules' own format descriptions, the carrier table and
 * the S10 post list: the doc cannot drift from the decoder (test/decode/format-table.test.ts).
 */
export function renderFormatTable(): string {
  const byCarrier = new Map<CarrierCode, FormatDoc[]>()
  for (const rule of ALL_RULES)
    for (const f of rule.formats) byCarrier.set(f.carrier, [...(byCarrier.get(f.carrier) ?? []), f])
  const cell = (s: string) => s.replace(/\|/g, '\\|')
  const lines = [
    '# Tracking-number formats',
    '',
    "<!-- Generated from the decoder's tables by test/decode/format-table.test.ts; do not edit by hand.",
    '     After changing a rule: npx vitest run test/decode/format-table.test.ts -u -->',
    '',
    'Every format the decoder (`GET /api/v1/packages/tracking/decode`) recognises, after the scan is',
    'made uniform: upper case, with the spaces, hyphens and dots printed between groups removed, and a',
    'USPS `420` + ZIP routing prefix read off. Each reading is listed in `decodedCarriers` with its',
    '`checkDigitValid` (`null` when the format defines no check character) and `trackingUrl`.',
    'The rules follow the public catalogue [tracking_number_data](https://github.com/jkeen/tracking_number_data).',
    '',
    '| Carrier | Format | Layout | Check | Also read as |',
    '| --- | --- | --- | --- | --- |',
  ]
  for (const code of CARRIER_CODES) {
    for (const f of byCarrier.get(code) ?? []) {
      const also = (f.alsoRead ?? []).map((c) => CARRIER_NAMES[c]).join(', ')
      lines.push(
        `| ${cell(CARRIER_NAMES[code])} | ${cell(f.name)} | ${cell(f.layout)} | ${cell(CHECKS[f.check])} | ${cell(also)} |`,
      )
    }
  }
  lines.push('', '## Tracking pages', '', '| Carrier | `trackingUrl` (`%s`: the number) |', '| --- | --- |')
  for (const code of CARRIER_CODES) {
    const url: string | undefined = CARRIERS[code].trackingUrl
    lines.push(
      `| ${cell(CARRIER_NAMES[code])} | ${url === undefined ? "(none: mailroom's own numbers)" : `\`${url}\``} |`,
    )
  }
  lines.push(
    '',
    '## UPU S10 posting operators',
    '',
    'An S10 item names its posting operator in `barcode.fields.s10PostingOperator`. Items of USPS (US),',
    'Canada Post (CA) and Royal Mail (GB) are read as that post; items of every other post are',
    'candidates for each of those three local posts, which deliver them. A country code outside this',
    `list is no S10 item. ${S10_POSTS.size} country codes:`,
    '',
    [...S10_POSTS].map(([cc, operator]) => `${cc} ${operator}`).join(' · '),
    '',
  )
  return lines.join('\n')
}
