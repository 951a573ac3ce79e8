/**
 * The body of tesseract.js's own thread, with the network taken away first.
 *
 * tesseract.js's Node worker script keeps `global.fetch` as its download function when it loads;
 * its only use is fetching a language model or an image by URL, which a label reader must never
 * do (offline sites; a CDN's model is not the one reviewed). Replacing `fetch` before the script
 * loads makes any such attempt fail at once, inside this thread, with an error that names it.
 *
 * A start that fails (no model, a refused fetch) is answered and then ends this thread:
 * tesseract.js never settles `createWorker` after a failed model load and keeps the thread, so
 * every failed start would leave one behind.
 */
import { createRequire } from 'node:module'
import { parentPort } from 'node:worker_threads'
import { OCR_NETWORK_REFUSED } from './errors.js'

globalThis.fetch = (input: unknown) => {
  const url = typeof input === 'string' ? input : input instanceof URL ? input.href : String(input)
  return Promise.reject(new Error(`${OCR_NETWORK_REFUSED}: refused ${url}`))
}

const STARTING = new Set(['load', 'loadLanguage', 'initialize'])
if (parentPort) {
  const port = parentPort
  const post = port.postMessage.bind(port)
  port.postMessage = (message: unknown, transfer?: never) => {
    post(message, transfer)
    const m = message as { status?: string; action?: string } | null
    if (m?.status === 'reject' && m.action && STARTING.has(m.action)) setTimeout(() => process.exit(1), 50)
  }
}

createRequire(import.meta.url)('tesseract.js/src/worker-script/node/index.js')
