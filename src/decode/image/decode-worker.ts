/**
 * The body of an image-decode worker thread (see image-decode-pool.ts): reads one picture and
 * answers with plain data. Error classes do not survive the thread boundary (structured clone
 * keeps only message and name of built-in errors), so the expected failures travel as a tagged
 * answer and the pool rebuilds them; anything else (a wasm trap) rejects as itself.
 */
import { ImageDecodeError, ImageTooLargeError, UnsupportedImageFormatError } from './errors.js'
import type { FoundBarcode } from './found-barcode.js'
import { findShipTo } from '../label/index.js'
import { readImageHeader } from './image-header.js'
import { readLabelText, type LabelText, type OcrOptions } from './ocr.js'
import { prepareForOcr } from './ocr-image.js'
import { readSymbols } from './read-barcodes-from-image.js'
import { loadZXingReader } from './zxing-module.js'

/** A photo to read, or a warm-up: the thread starts (the wasm compiled) outside any photo's budget. */
export type WorkerTask = DecodeTask | { warm: true }

export interface DecodeTask {
  bytes: Uint8Array
  maxPixels: number
  /** Also read the printed text (OCR), after the barcodes. */
  text?: OcrOptions | false
}

export type DecodeAnswer =
  | { ok: true; found: FoundBarcode[]; text?: LabelText; textError?: string }
  | { ok: false; kind: 'unsupported'; format: string }
  | { ok: false; kind: 'too-large'; width: number; height: number; maxPixels: number }
  | { ok: false; kind: 'unreadable'; message: string }

// A fresh thread starts compiling the wasm as it boots rather than on its first task (a replaced
// worker too). Not a top-level await: tsx cannot load a TypeScript worker that has one. A failure
// here is retried by the first read.
loadZXingReader().catch(() => undefined)

export default async function decodeInWorker(task: WorkerTask): Promise<DecodeAnswer> {
  if ('warm' in task) {
    await loadZXingReader()
    return { ok: true, found: [] }
  }
  try {
    const { found, radians } = await readSymbols(task.bytes, { maxPixels: task.maxPixels })
    if (!task.text) return { ok: true, found }
    // The barcodes stand whatever the OCR does: a failed read of the text is reported beside them.
    try {
      // Upright, grey, at most about 4 MP, its light evened (ocr-image.ts): the barcodes above were read from the picture as sent.
      const page = await prepareForOcr(task.bytes, readImageHeader(task.bytes), { maxPixels: task.maxPixels })
      const text = await readLabelText(page, { ...task.text, radians })
      if (findShipTo(text.lines)?.name) return { ok: true, found, text }
      // No recipient read: once more, straightened the other way (tesseract's estimate when the
      // barcode gave the angle, none when the estimate misled it). Only doubtful photos pay twice.
      const again = await readLabelText(page, { ...task.text, radians: radians === undefined ? null : undefined })
      return { ok: true, found, text: findShipTo(again.lines)?.name ? again : text }
    } catch (e) {
      return { ok: true, found, textError: e instanceof Error ? e.message : String(e) }
    }
  } catch (e) {
    if (e instanceof UnsupportedImageFormatError) return { ok: false, kind: 'unsupported', format: e.format }
    if (e instanceof ImageTooLargeError)
      return { ok: false, kind: 'too-large', width: e.width, height: e.height, maxPixels: e.maxPixels }
    if (e instanceof ImageDecodeError) return { ok: false, kind: 'unreadable', message: e.message }
    throw e
  }
}
