import { createRequire } from 'node:module'
import { pathToFileURL } from 'node:url'
import { Piscina } from 'piscina'
import type { DecodeAnswer, WorkerTask } from './decode-worker.js'
import {
  ImageDecodeBusyError,
  ImageDecodeError,
  ImageDecodeTimeoutError,
  ImageTooLargeError,
  UnsupportedImageFormatError,
} from './errors.js'
import type { FoundBarcode } from './found-barcode.js'
import type { LabelText, OcrOptions } from './ocr.js'
import { readImageHeader } from './image-header.js'
import { checkPixelCount } from './read-barcodes-from-image.js'

export interface ImageDecodePoolOptions {
  /** Worker threads that decode at once. */
  threads: number
  /** Decodes that may wait for a thread; beyond it `read` refuses at once (ImageDecodeBusyError). */
  maxQueue: number
  /** Budget of one decode, waiting included; past it the decode is abandoned and its thread replaced. */
  timeoutMs: number
  /** Largest picture decoded, in pixels, as its header declares them. */
  maxPixels: number
  /** An idle thread exits after this long, giving back the memory its last picture grew the wasm heap to. */
  idleTimeoutMs?: number
  /** A thread that failed outside a task (it could not start); default: a process warning. */
  onWorkerError?: (error: unknown) => void
}

/** What one label photo holds: its barcodes, and its printed text when asked for. */
export interface LabelRead {
  barcodes: FoundBarcode[]
  text?: LabelText
  /** Why the text could not be read (the OCR failed; the barcodes stand). */
  textError?: string
}

/**
 * Label photos decoded off the event loop. The zxing read is synchronous wasm: on the main thread a
 * 50-megapixel PNG held every request of every tenant for seconds. Here each read runs in one of a
 * few worker threads (piscina: a bounded queue in front of them, and a task aborted while running
 * terminates its thread, which is replaced on demand, so a runaway decode never outlives its
 * budget). The header is read here first (a few bytes), so unsupported and oversized pictures are
 * refused without touching a thread.
 */
export class ImageDecodePool {
  readonly #pool: Piscina<WorkerTask, DecodeAnswer>
  readonly #opts: ImageDecodePoolOptions

  constructor(opts: ImageDecodePoolOptions) {
    this.#opts = opts
    this.#pool = new Piscina<WorkerTask, DecodeAnswer>({
      ...workerSource(),
      minThreads: 0, // started on the first photo: a service that never sees one pays nothing
      maxThreads: opts.threads,
      maxQueue: opts.maxQueue,
      idleTimeout: opts.idleTimeoutMs ?? 60_000,
      // One photo at a time per thread: a second would only wait inside it, out of the queue's sight.
      concurrentTasksPerWorker: 1,
      // Decode threads yield the CPU to the event loop: on a busy machine a photo waits a little
      // longer rather than every other request (Linux nices the thread alone; where the optional
      // @napi-rs/nice binary is missing, piscina skips it).
      niceIncrement: 10,
    })
    // Unheard, piscina's 'error' event would end the process. The task of a thread that could not
    // start stays queued until its time budget answers it.
    this.#pool.on(
      'error',
      opts.onWorkerError ??
        ((e: unknown) =>
          process.emitWarning(`image decode worker failed: ${e instanceof Error ? e.message : String(e)}`)),
    )
  }

  /**
   * Every barcode in the picture (PNG, JPEG or GIF bytes).
   *
   * @throws UnsupportedImageFormatError, ImageTooLargeError, ImageDecodeError: the picture's fault
   * @throws ImageDecodeBusyError when every thread is busy and the queue is full
   * @throws ImageDecodeTimeoutError when the budget ran out
   */
  async read(bytes: Uint8Array): Promise<FoundBarcode[]> {
    return (await this.#run(bytes, false)).barcodes
  }

  /**
   * Every barcode and the printed text (OCR) of a label photo, in one task on one thread, within
   * the same budget and bounds as `read`. A failed OCR is `textError` beside the barcodes, never a
   * failed read: the picture's barcodes are still worth having.
   */
  async readLabel(bytes: Uint8Array, ocr: OcrOptions = {}): Promise<LabelRead> {
    return this.#run(bytes, ocr)
  }

  /**
   * The thread a budget stopped is replaced on demand; its start (the module, the wasm compiled) is
   * work no photo should pay inside its budget: on a busy machine that start alone outlasted a tight
   * budget, so every photo stopped the thread it was starting and none was ever read. A warm-up
   * task with no budget starts the replacement now; photos meanwhile wait or are refused as busy.
   */
  #warmReplacement(tries = 20): void {
    // The stopped thread may still count against the pool for a moment: refused, try again shortly.
    this.#pool.run({ warm: true }).catch((e: unknown) => {
      if (tries > 1 && isFullPool(e)) setTimeout(() => this.#warmReplacement(tries - 1), 50).unref()
    })
  }

  async #run(bytes: Uint8Array, text: OcrOptions | false): Promise<LabelRead> {
    checkPixelCount(readImageHeader(bytes), this.#opts.maxPixels)
    // A copy with a buffer of its own moves to the thread without another copy; the caller's
    // Buffer may be a view into Node's shared pool, which must not be detached.
    const own = new Uint8Array(bytes) // a copy (Buffer#slice would share the memory)
    const signal = AbortSignal.timeout(this.#opts.timeoutMs)
    let answer: DecodeAnswer
    try {
      answer = await this.#pool.run(
        { bytes: own, maxPixels: this.#opts.maxPixels, text },
        { signal, transferList: [own.buffer] },
      )
    } catch (e) {
      if (signal.aborted) {
        this.#warmReplacement()
        throw new ImageDecodeTimeoutError(this.#opts.timeoutMs)
      }
      if (isFullPool(e)) throw new ImageDecodeBusyError(this.#opts.maxQueue)
      throw e
    }
    if (answer.ok) {
      const read: LabelRead = { barcodes: answer.found }
      if (answer.text) read.text = answer.text
      if (answer.textError !== undefined) read.textError = answer.textError
      return read
    }
    switch (answer.kind) {
      case 'unsupported':
        throw new UnsupportedImageFormatError(answer.format)
      case 'too-large':
        throw new ImageTooLargeError(answer.width, answer.height, answer.maxPixels)
      case 'unreadable':
        throw new ImageDecodeError(answer.message)
      default:
        return answer satisfies never
    }
  }

  /** Threads alive now (tests, metrics). */
  get threads(): number {
    return this.#pool.threads.length
  }

  /** Stops every thread; decodes in flight fail. */
  async close(): Promise<void> {
    await this.#pool.close({ force: true })
  }
}

/** piscina's refusals when its threads and queue are full (errors it does not export). */
const isFullPool = (e: unknown) => e instanceof Error && /queue is at limit|no task queue available/i.test(e.message)

/**
 * The worker module beside this one: compiled JavaScript in a build; from a checkout the TypeScript
 * source, which a worker thread can only load with tsx's loader on its own command line (the
 * parent's `register()` does not reach new threads).
 */
function workerSource(): { filename: string; execArgv?: string[] } {
  const fromSource = import.meta.url.endsWith('.ts')
  const filename = new URL(fromSource ? './decode-worker.ts' : './decode-worker.js', import.meta.url).href
  if (!fromSource) return { filename }
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href
  return { filename, execArgv: ['--import', tsx] }
}
