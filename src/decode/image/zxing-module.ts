/// <reference types="emscripten" />
// zxing-wasm's override types name Emscripten's globals, which tsconfig's `types: ["node"]` leaves out.
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { prepareZXingModule, purgeZXingModule, type ZXingModuleOverrides } from 'zxing-wasm/reader'

let overrides: ZXingModuleOverrides | undefined
let ready: Promise<void> | undefined

/**
 * Instantiates the zxing reader once, on first use; every read after that shares it. Compiling
 * the 1 MB wasm costs tens of milliseconds, a warm read does not pay it.
 *
 * The wasm comes from the installed package. Left alone, zxing-wasm fetches it from jsDelivr, which a
 * server must never do (offline sites, supply chain, a binary that differs from the JS glue).
 * Handing Emscripten `wasmBinary` skips its fetch path. zxing-wasm caches the instance under these
 * overrides, and its `readBarcodes`, which passes none of its own, reuses it.
 */
export function loadZXingReader(): Promise<void> {
  ready ??= start().catch((error: unknown) => {
    // A failed start must not stick: zxing-wasm caches the rejected promise too, so drop both.
    ready = undefined
    purgeZXingModule()
    throw error
  })
  return ready
}

/**
 * Drops the current instance after a wasm trap, which leaves an Emscripten module dead for every
 * later call. It re-registers our overrides rather than purging: a purge would put zxing-wasm's CDN
 * default back for any read already past `loadZXingReader`.
 */
export function resetZXingReader(): void {
  ready = undefined
  if (overrides) prepareZXingModule({ overrides, equalityFn: () => false })
}

async function start(): Promise<void> {
  overrides ??= { wasmBinary: await readWasm() }
  await prepareZXingModule({ overrides, fireImmediately: true })
}

async function readWasm(): Promise<ArrayBuffer> {
  const path = createRequire(import.meta.url).resolve('zxing-wasm/reader/zxing_reader.wasm')
  const file = await readFile(path)
  return file.buffer.slice(file.byteOffset, file.byteOffset + file.byteLength)
}
