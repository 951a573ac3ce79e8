import { createRequire } from 'node:module'
import path from 'node:path'
import { Worker as NodeWorker } from 'node:worker_threads'
import type { Worker as TesseractWorker, Line } from 'tesseract.js'
import { ocrThreadUrl } from './ocr-thread.js'

/** The text of a label, line by line, as OCR read it. */
export interface LabelText {
  /** Every line, top to bottom, blocks in reading order; blank lines between blocks. */
  lines: Array<{ text: string; confidence: number }>
  /** Mean word confidence over the page, 0–100 (tesseract's). */
  confidence: number
}

export interface OcrOptions {
  /** Tesseract's page segmentation mode (PSM); see ocr-options in this file's comments. */
  psm?: string
  /** Where `eng.traineddata.gz` is; default: the `@tesseract.js-data/eng` package's LSTM model. */
  langPath?: string
  /** How far the label is turned (clockwise, radians), from its barcodes; null: not at all; absent: tesseract estimates it. */
  radians?: number | null
}

// PSM 3 (fully automatic layout) finds a label's columns as separate blocks, so "SHIP TO" and the
// sender's block beside it are not read across into one line; 4 (one column) and 6 (one block)
// merged the two. LSTM only (OEM 1): the legacy engine is not shipped in the best_int model.
const DEFAULT_PSM = '3'
const LSTM_ONLY = 1

let engine: Promise<TesseractWorker> | undefined

/** Rejects the job in flight when the OCR thread exits under it. */
const exited = {
  listeners: new Set<(e: Error) => void>(),
  fire(e: Error) {
    for (const l of this.listeners) l(e)
    this.listeners.clear()
  },
}

/** tesseract.js keeps its Node thread as `worker.worker` (not in its types). */
function threadOf(worker: TesseractWorker): NodeWorker | undefined {
  const thread = (worker as unknown as { worker?: unknown }).worker
  return thread instanceof NodeWorker ? thread : undefined
}

/** The English LSTM model shipped by @tesseract.js-data/eng: a local directory, never a URL. */
export function bundledLangPath(): string {
  const require = createRequire(import.meta.url)
  return path.dirname(require.resolve('@tesseract.js-data/eng/4.0.0_best_int/eng.traineddata.gz'))
}

/**
 * One tesseract.js worker per decode thread, started on the first label and kept: loading the
 * model costs about as much as reading a label. Its own thread is started from ocr-thread.ts
 * (the network taken away); `cacheMethod: 'none'` keeps it from writing the model to the working
 * directory. A start that fails is forgotten, so the next label tries again.
 */
function start(opts: OcrOptions): Promise<TesseractWorker> {
  engine ??= (async () => {
    const { createWorker } = await import('tesseract.js')
    // tesseract.js reports a failed start only to `errorHandler` (its promise never settles then):
    // the handler ends the wait. Without a handler it would throw from its message listener, where
    // nothing can catch it, and the thread would die. Later failures reject their own job.
    let failStart: (e: Error) => void = () => undefined
    const startFailed = new Promise<never>((_, reject) => (failStart = reject))
    startFailed.catch(() => undefined)
    const worker = await Promise.race([
      createWorker('eng', LSTM_ONLY, {
        langPath: opts.langPath ?? bundledLangPath(),
        cacheMethod: 'none',
        gzip: true,
        // A URL where tesseract.js's types say string: its Node side hands it to `new Worker` as it is.
        workerPath: ocrThreadUrl() as unknown as string,
        errorHandler: (data: unknown) => failStart(new Error(`OCR could not start: ${String(data)}`)),
      }),
      startFailed,
    ])
    await worker.setParameters({
      tessedit_pageseg_mode: (opts.psm ?? DEFAULT_PSM) as never,
      // Labels are dark on light: trying each line inverted as well cost time and found nothing.
      tessedit_do_invert: '0',
      // A phone photo carries no resolution; without one tesseract estimates it (and says so on stdout).
      user_defined_dpi: '300',
      // Tesseract's own notes ("Detected 5 diacritics") go to its debug file, not the service's stdout.
      debug_file: '/dev/null',
    })
    // A thread that dies later (a wasm abort) would leave its job unanswered: the next label starts
    // another, and the job in flight fails (see readLabelText).
    // An exception nothing caught in that thread arrives here as 'error' (then 'exit'): without a
    // listener it would be thrown in this thread and kill the decode, barcodes and all.
    const thread = threadOf(worker)
    thread?.on('error', (e) => {
      engine = undefined
      exited.fire(new Error('The OCR thread failed', { cause: e }))
    })
    thread?.once('exit', () => {
      engine = undefined
      exited.fire(new Error('The OCR thread stopped'))
    })
    return worker
  })().catch((e: unknown) => {
    engine = undefined
    throw e instanceof Error ? e : new Error(String(e))
  })
  return engine
}

/** The OCR engine's own thread once started (tests make it fail; nothing else should touch it). */
export async function ocrThread(): Promise<NodeWorker | undefined> {
  return engine ? threadOf(await engine) : undefined
}

/**
 * Reads the printed text of a label photo (PNG, JPEG or GIF bytes): every line with its confidence.
 * The page is deskewed first (tesseract's own gradient estimate, `rotateAuto`). Runs in a decode
 * thread (image-decode-pool.ts); the header and pixel bounds are checked before it is called.
 *
 * @throws when tesseract cannot start or read the picture; the caller answers without text
 */
export async function readLabelText(bytes: Uint8Array, opts: OcrOptions = {}): Promise<LabelText> {
  const worker = await start(opts)
  let result: Awaited<ReturnType<TesseractWorker['recognize']>>
  try {
    let onExit: (e: Error) => void = () => undefined
    const died = new Promise<never>((_, reject) => {
      onExit = reject
      exited.listeners.add(reject)
    })
    died.catch(() => undefined)
    try {
      result = await Promise.race([
        worker.recognize(Buffer.from(bytes), deskew(opts.radians), { text: false, blocks: true }),
        died,
      ])
    } finally {
      exited.listeners.delete(onExit)
    }
  } catch (e) {
    // A failed job may leave the engine in any state: the next label starts a fresh one.
    engine = undefined
    await worker.terminate().catch(() => undefined)
    throw e instanceof Error ? e : new Error(String(e))
  }
  const lines: LabelText['lines'] = []
  for (const block of result.data.blocks ?? []) {
    if (lines.length > 0) lines.push({ text: '', confidence: 0 })
    for (const paragraph of block.paragraphs)
      for (const line of paragraph.lines) {
        const text = cleanLine(line)
        if (text) lines.push({ text, confidence: Math.round(line.confidence) })
      }
  }
  return { lines, confidence: Math.round(result.data.confidence) }
}

/**
 * Straightening the page: by the angle its 2D barcode shows when there is one (exact, and it
 * saves tesseract a whole layout pass), else by tesseract's own estimate from the text lines,
 * which a turned, tilted photo can mislead into reading nothing.
 */
function deskew(radians: number | null | undefined): { rotateRadians: number } | { rotateAuto: true } {
  if (radians === undefined) return { rotateAuto: true }
  return { rotateRadians: radians === null ? 0 : -radians }
}

function cleanLine(line: Line): string {
  return line.text.replace(/\s+/g, ' ').trim()
}
