/**
 * In-process decode on one core: `node --import tsx bench/decode.bench.ts`.
 * Prints the recall on fresh numbers generated from the public catalogue's rules (per courier group;
 * targets ≥ 97% major carriers, ≥ 95% all, ≤ 2% of check-character changes accepted as valid), then
 * {"oneD_per_s": …, "twoD_per_s": …} (targets ≥ 200 000 1D numbers/s, ≥ 50 000 2D payloads/s).
 * The 1D corpus holds every format of the catalogue, bare and human-readable, so one slow rule
 * shows up in the average.
 */
import { decodeScan, fedexCheckDigit, gs1CheckDigit, mailroomCheckChar, upsCheckDigit } from '../src/decode/index.js'
import { GENERATED_FORMATS, humanReadable, rng } from '../test/decode/support/generate.js'
import { formatRecall, measureRecall } from '../test/decode/support/recall.js'

const GS = '\u001d'
const RS = '\u001e'
const EOT = '\u0004'

function digits(n: number, seed: number): string {
  let s = ''
  let x = seed
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) % 2147483648
    s += String(x % 10)
  }
  return s
}

function oneDCorpus(): string[] {
  const out: string[] = []
  for (let i = 0; i < 200; i++) {
    const ups = `5R8939${i % 2 ? '03' : '01'}${digits(7, i)}`
    out.push(`1Z${ups}${upsCheckDigit(ups)}`)
    const fx = digits(11, i + 1)
    out.push(fx + fedexCheckDigit(fx))
    const ground = digits(14, i + 2)
    out.push(ground + gs1CheckDigit(ground))
    const pic = `9205590164917${digits(8, i + 3)}`
    out.push(pic + gs1CheckDigit(pic))
    out.push(`420${digits(5, i)}${pic}${gs1CheckDigit(pic)}`)
    out.push(`TBA${digits(12, i + 4)}`)
    const mr = `${digits(6, i + 5)}ABCDEF`
    out.push(`MR${mr}${mailroomCheckChar(mr)}`)
    out.push(`RB${digits(8, i + 6)}5GB`)
    out.push(digits(10, i + 7))
    out.push(`1001901781990001000300${fx}${fedexCheckDigit(fx)}`)
  }
  const r = rng(1)
  for (let i = 0; i < 50; i++) {
    for (const f of GENERATED_FORMATS) {
      const n = f.make(r).number
      out.push(n, humanReadable(r, n))
    }
  }
  return out
}

function twoDCorpus(): string[] {
  const out: string[] = []
  for (let i = 0; i < 100; i++) {
    const zip = digits(9, i)
    out.push(
      `]U1[)>${RS}01${GS}96${zip}${GS}840${GS}001${GS}1Z12345675${GS}UPSN${GS}12345E${GS}089${GS}${GS}1/1${GS}10${GS}Y${GS}634 ALPHA DR${GS}PITTSBURGH${GS}PA${RS}${EOT}`,
    )
    const fx = digits(11, i + 1)
    out.push(
      `]L2[)>${RS}01${GS}02${zip.slice(0, 5)}${GS}840${GS}01${GS}${fx}${fedexCheckDigit(fx)}${GS}FDEB${GS}123456789${GS}200${GS}${GS}1/1${GS}7.00LB${GS}N${GS}9185 GRANT AVE${GS}COLLIERVILLE${GS}TN${RS}06${GS}10ZED008${GS}11ZJOHN DOE${GS}12Z9015551234${RS}${EOT}`,
    )
    const sscc = `0061414${digits(10, i + 2)}`
    out.push(
      `]d2${GS}00${sscc}${gs1CheckDigit(sscc)}420${zip}${GS}4301JANE DOE${GS}4302123 MAIN ST${GS}4305SPRINGFIELD`,
    )
    out.push(
      `[)>${RS}09${GS}LABEL${GS}NONE${GS}6${GS}\u0001${RS}${GS}${EOT}xy${RS}06${GS}JJD01460000${digits(9, i)}${GS}2LDE53113+70000000${RS}${EOT}`,
    )
  }
  return out
}

/**
 * Decodes the corpus round-robin for about `ms` milliseconds of this process's CPU time; returns
 * decodes per CPU-second. CPU time rather than wall time: on a shared machine the wall clock counts
 * the time other processes hold the core, which says nothing of the decoder.
 */
function measure(corpus: readonly string[], ms: number): number {
  let sink = 0
  for (let i = 0; i < 20_000; i++) sink += decodeScan(corpus[i % corpus.length] ?? '').candidates.length
  const cpuMs = () => {
    const u = process.cpuUsage()
    return (u.user + u.system) / 1000
  }
  const start = cpuMs()
  let n = 0
  for (;;) {
    for (let j = 0; j < 1000; j++) sink += decodeScan(corpus[(n + j) % corpus.length] ?? '').candidates.length
    n += 1000
    const elapsed = cpuMs() - start
    if (elapsed >= ms) {
      if (sink < 0) console.error(sink)
      return Math.round((n * 1000) / elapsed)
    }
  }
}

const recall = measureRecall(Number(process.env.BENCH_SEED ?? Date.now() % 2 ** 31), 1000)
console.log(formatRecall(recall))
const oneD_per_s = measure(oneDCorpus(), 1500)
const twoD_per_s = measure(twoDCorpus(), 1500)
console.log(`1D decodes/s: ${oneD_per_s} (target ≥ 200000) ${oneD_per_s >= 200_000 ? 'ok' : 'MISS'}`)
console.log(`2D payloads/s: ${twoD_per_s} (target ≥ 50000) ${twoD_per_s >= 50_000 ? 'ok' : 'MISS'}`)
console.log(JSON.stringify({ oneD_per_s, twoD_per_s }))
