/**
 * Renders 4×6 shipping labels in headless Chromium and photographs them the way a phone at a
 * receiving desk does: the label on cardboard, turned, tilted, out of focus, lit unevenly, saved
 * as a JPEG. Barcodes (Code 128 and a 2D symbol) come from bwip-js. Seeded: the same set on
 * every machine with the same Chromium and fonts (Debian's DejaVu).
 */
import bwipjs from 'bwip-js'
import type { Browser, Page } from 'playwright-core'
import { launchChromium } from '../../test/browser/support.js'
import { seeded, type LabelSpec } from './directory.js'

export interface Shot {
  /** 'clean': the label alone, flat and sharp, as a scanner would give it; 'photo': photographed. */
  kind: 'clean' | 'photo'
  bytes: Buffer
  spec: LabelSpec
  /** What the photo went through. */
  degradation?: { degrees: number; tiltX: number; tiltY: number; blur: number; light: number; quality: number }
}

const DPI = 160 // a 4×6 label at 640×960 px: about what a phone photo of a label resolves

async function png(options: Parameters<typeof bwipjs.toBuffer>[0]): Promise<string> {
  return `data:image/png;base64,${(await bwipjs.toBuffer(options)).toString('base64')}`
}

function escape(s: string): string {
  return s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`)
}

async function labelHtml(spec: LabelSpec, font: string): Promise<string> {
  const code128 = await png({ bcid: 'code128', text: spec.tracking, scale: 2, height: 14, includetext: false })
  const matrix = await png({ bcid: 'datamatrix', text: `${spec.tracking}|${spec.printedName}`, scale: 3 })
  const up = (s: string) => (spec.upper ? s.toUpperCase() : s)
  const shipTo = [
    spec.printedName,
    spec.company ? up(spec.company) : undefined,
    up(spec.street) + (spec.unit ? ` ${up(spec.unit)}` : ''),
    spec.city,
  ].filter((l): l is string => !!l)
  return `<!doctype html><html><head><style>
    body { margin: 0; background: transparent; }
    .label { width: ${4 * DPI}px; height: ${6 * DPI}px; background: #fff; color: #111; font-family: '${font}';
      box-sizing: border-box; padding: ${0.12 * DPI}px; display: flex; flex-direction: column; gap: ${0.08 * DPI}px; }
    .from { font-size: ${0.1 * DPI}px; line-height: 1.2; }
    .row { display: flex; justify-content: space-between; }
    .to-head { font-size: ${0.12 * DPI}px; font-weight: bold; }
    .to { font-size: ${0.17 * DPI}px; line-height: 1.25; font-weight: bold; padding-left: ${0.15 * DPI}px; }
    .bar { border-top: 3px solid #111; }
    .service { font-size: ${0.3 * DPI}px; font-weight: bold; }
    .small { font-size: ${0.1 * DPI}px; }
    img { image-rendering: pixelated; }
  </style></head><body><div class="label" id="label">
    <div class="row"><div class="from">${spec.sender.map(escape).join('<br>')}</div>
      <div class="small">1 LBS&nbsp;&nbsp;1 OF 1<br>DWT: 10,8,4</div></div>
    <div class="to-head">SHIP TO:</div>
    <div class="to">${shipTo.map(escape).join('<br>')}</div>
    <div class="bar"></div>
    <div class="row"><img src="${matrix}" style="width:${1.1 * DPI}px"><div class="service">UPS GROUND</div></div>
    <div class="bar"></div>
    <div class="small">TRACKING #: ${escape(spec.tracking)}</div>
    <img src="${code128}" style="width:${3.6 * DPI}px;height:${0.9 * DPI}px">
    <div class="small">BILLING: P/P</div>
  </div></body></html>`
}

/** The label on cardboard in a phone's frame: turned, tilted, blurred, lit from one side. */
function photoHtml(labelPng: string, d: NonNullable<Shot['degradation']>): string {
  return `<!doctype html><html><head><style>
    body { margin: 0; width: 900px; height: 1200px; overflow: hidden;
      background: radial-gradient(circle at 30% 30%, #c19a6b, #8b6b43); perspective: 1600px; }
    img { position: absolute; left: 130px; top: 120px; width: 640px;
      transform: rotateX(${d.tiltX}deg) rotateY(${d.tiltY}deg) rotate(${d.degrees}deg);
      filter: blur(${d.blur}px); box-shadow: 4px 6px 12px rgba(0,0,0,.4); }
    .light { position: absolute; inset: 0;
      background: linear-gradient(${Math.round(d.light * 360)}deg, rgba(0,0,0,.35), rgba(255,255,255,0) 60%);
      mix-blend-mode: multiply; }
  </style></head><body><img src="${labelPng}"><div class="light"></div></body></html>`
}

const FONTS = ['DejaVu Sans', 'DejaVu Sans Mono', 'DejaVu Serif', 'DejaVu Sans Condensed']

/** Each spec as a clean label and, unless `photos` is false, as a photo of it. */
export async function renderLabels(
  specs: LabelSpec[],
  opts: { photos?: boolean; clean?: boolean; seed?: number } = {},
): Promise<Shot[]> {
  const rand = seeded(opts.seed ?? 11)
  const chromium = await launchChromium()
  const shots: Shot[] = []
  try {
    const page = await newPage(chromium.browser)
    for (const spec of specs) {
      await page.setContent(await labelHtml(spec, FONTS[Math.floor(rand() * FONTS.length)]!))
      const clean = await page.locator('#label').screenshot({ type: 'png' })
      if (opts.clean !== false) shots.push({ kind: 'clean', bytes: clean, spec })
      if (opts.photos === false) continue
      const d = {
        degrees: round((rand() - 0.5) * 16),
        tiltX: round((rand() - 0.5) * 16),
        tiltY: round((rand() - 0.5) * 16),
        blur: round(rand() * 1.1),
        light: round(rand()),
        quality: 45 + Math.floor(rand() * 40),
      }
      await page.setContent(photoHtml(`data:image/png;base64,${clean.toString('base64')}`, d))
      const photo = await page.screenshot({ type: 'jpeg', quality: d.quality })
      shots.push({ kind: 'photo', bytes: photo, spec, degradation: d })
    }
  } finally {
    await chromium.close()
  }
  return shots
}

async function newPage(browser: Browser): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 900, height: 1200 }, deviceScaleFactor: 1 })
  return page
}

function round(x: number): number {
  return Math.round(x * 100) / 100
}
