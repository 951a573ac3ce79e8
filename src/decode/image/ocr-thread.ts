import { createRequire } from 'node:module'
import { OCR_NETWORK_REFUSED } from './errors.js'

/**
 * The body of tesseract.js's own thread, with the network taken away first, as a `data:` module
 * (plain JavaScript: it needs no TypeScript loader, from a checkout or a build alike).
 *
 * tesseract.js's Node worker script keeps `global.fetch` as its download function when it loads;
 * its only use is fetching a language model or an image by URL, which a label reader must never
 * do (offline sites; a CDN's model is not the one reviewed). Replacing `fetch` before the script
 * loads makes any such attempt fail at once, inside that thread, with an error that names it.
 *
 * A start that fails (no model, a refused fetch) is answered and then ends the thread:
 * tesseract.js never settles `createWorker` after a failed model load and keeps its thread, so
 * every failed start would leave one behind.
 */
export function ocrThreadUrl(): URL {
  const script = createRequire(import.meta.url).resolve('tesseract.js/src/worker-script/node/index.js')
  const source = `
import { createRequire } from 'node:module'
import { parentPort } from 'node:worker_threads'
globalThis.fetch = (input) => {
  const url = typeof input === 'string' ? input : String(input && input.url ? input.url : input)
  return Promise.reject(new Error(${JSON.stringify(OCR_NETWORK_REFUSED)} + ': refused ' + url))
}
const starting = new Set(['load', 'loadLanguage', 'initialize'])
const post = parentPort.postMessage.bind(parentPort)
parentPort.postMessage = (message, transfer) => {
  post(message, transfer)
  if (message && message.status === 'reject' && starting.has(message.action)) setTimeout(() => process.exit(1), 50)
}
createRequire(${JSON.stringify(script)})(${JSON.stringify(script)})
`
  return new URL(`data:text/javascript,${encodeURIComponent(source)}`)
}
