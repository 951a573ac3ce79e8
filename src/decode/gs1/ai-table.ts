/**
 * GS1 Application Identifiers met on parcels and logistic labels (GS1 General Specifications §3.2).
 * The AI length follows from its first two digits (§3.2, "AIs by first two digits"), which is what
 * lets an element string be split without a dictionary of every AI.
 */

export interface AiSpec {
  /** Data length when the AI is fixed-length. */
  readonly fixed?: number
  /** Maximum data length. */
  readonly max: number
  /** Data is all digits. */
  readonly numeric: boolean
}

function aiLengthFor(prefix: number): number {
  if (prefix >= 23 && prefix <= 25) return 3
  if (prefix >= 31 && prefix <= 36) return 4
  if (prefix === 39 || prefix === 43 || prefix === 70 || prefix === 72) return 4
  if (prefix >= 40 && prefix <= 42) return 3
  if (prefix === 71) return 3
  if (prefix >= 80 && prefix <= 82) return 4
  return 2
}

/** AI length indexed by the two-digit prefix, computed once. */
const AI_LENGTH: readonly number[] = Array.from({ length: 100 }, (_, p) => aiLengthFor(p))

// "n18" fixed numeric, "n..8" variable numeric, "x..20" variable alphanumeric. Composite formats
// (e.g. 421 = n3+x..9) are given by their total maximum and the loosest character set.
const SPECS = `
00 n18|01 n14|02 n14|03 n14|10 x..20|11 n6|12 n6|13 n6|15 n6|16 n6|17 n6|20 n2|21 x..20|22 x..20
235 x..28|240 x..30|241 x..30|242 n..6|243 x..20|250 x..30|251 x..30|253 x..30|254 x..20|255 n..25
30 n..8|37 n..8|400 x..30|401 x..30|402 n17|403 x..30|410 n13|411 n13|412 n13|413 n13|414 n13
415 n13|416 n13|417 n13|420 x..20|421 x..12|422 n3|423 n..15|424 n3|425 n..15|426 n3|427 x..3
4300 x..35|4301 x..35|4302 x..70|4303 x..70|4304 x..70|4305 x..70|4306 x..70|4307 x2|4308 x..30
4309 n20|4310 x..35|4311 x..35|4312 x..70|4313 x..70|4314 x..70|4315 x..70|4316 x..70|4317 x2
4318 x..20|4319 x..30|4320 x..35|4321 n1|4322 n1|4323 n1|4324 n10|4325 n10|4326 n6|4330 x..7
4331 x..7|4332 x..7|4333 x..7|7001 n13|7002 x..30|7003 n10|7004 n..4|7005 x..12|7006 n6
7007 n..12|7008 x..3|7009 x..10|7010 x..2|7011 n..10|7020 x..20|7021 x..20|7022 x..20|7023 x..30
7040 x4|710 x..20|711 x..20|712 x..20|713 x..20|714 x..20|715 x..20|716 x..20|7240 x..20|7241 n2
7242 x..25
8001 n14|8002 x..20|8003 x..30|8004 x..30|8005 n6|8006 n18|8007 x..34|8008 n..12|8009 x..50
8010 x..30|8011 n..12|8012 x..20|8013 x..25|8017 n18|8018 n18|8019 n..10|8020 x..25|8026 n18
8030 x..90|8110 x..70|8111 n4|8112 x..70|8200 x..70|90 x..30`

function parseSpec(text: string): AiSpec {
  const numeric = text.startsWith('n')
  const body = text.slice(1)
  if (body.startsWith('..')) return { max: Number(body.slice(2)), numeric }
  const n = Number(body)
  return { fixed: n, max: n, numeric }
}

const TABLE: ReadonlyMap<string, AiSpec> = (() => {
  const map = new Map<string, AiSpec>()
  for (const entry of SPECS.replace(/\n/g, '|').split('|')) {
    const [ai, spec] = entry.trim().split(' ')
    if (ai !== undefined && ai !== '' && spec !== undefined) map.set(ai, parseSpec(spec))
  }
  // 91–99: company internal information. USPS puts its IMpb channel identifiers here.
  for (let ai = 91; ai <= 99; ai++) map.set(String(ai), { max: 90, numeric: false })
  // 703s: processor with ISO country code (n3+x..27).
  for (let s = 0; s <= 9; s++) map.set(`703${s}`, { max: 30, numeric: false })
  // 7230–7239: certification reference (x2+x..28).
  for (let s = 0; s <= 9; s++) map.set(`723${s}`, { max: 30, numeric: false })
  return map
})()

const MEASURE_FIXED: AiSpec = { fixed: 6, max: 6, numeric: true }
const AMOUNT: AiSpec = { max: 15, numeric: true }
const AMOUNT_ISO: AiSpec = { max: 18, numeric: true }

/** The AI starting at `pos`, or undefined when the digits there are not an AI we know. */
export function readAi(data: string, pos: number): { ai: string; spec: AiSpec } | undefined {
  const p0 = data.charCodeAt(pos) - 48
  const p1 = data.charCodeAt(pos + 1) - 48
  if (!(p0 >= 0 && p0 <= 9 && p1 >= 0 && p1 <= 9)) return undefined
  const prefix = p0 * 10 + p1
  const length = AI_LENGTH[prefix] ?? 2
  const ai = data.slice(pos, pos + length)
  if (ai.length !== length || !/^\d+$/.test(ai)) return undefined
  const spec = TABLE.get(ai) ?? familySpec(prefix, ai)
  return spec === undefined ? undefined : { ai, spec }
}

/** Measures 31nn–36nn are six digits with the decimal point position as the last AI digit. */
function familySpec(prefix: number, ai: string): AiSpec | undefined {
  if (prefix >= 31 && prefix <= 36) return MEASURE_FIXED
  if (prefix === 39) {
    const kind = ai.charAt(2)
    if (kind === '0' || kind === '2') return AMOUNT
    if (kind === '1' || kind === '3') return AMOUNT_ISO
    if (kind === '4') return { fixed: 4, max: 4, numeric: true }
    if (kind === '5') return MEASURE_FIXED
  }
  return undefined
}
