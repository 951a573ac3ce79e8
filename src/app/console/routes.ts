import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { FastifyPluginAsync, FastifyReply } from 'fastify'
import { vocabularyModule } from './vocabulary.js'

/** Where the console's own files are (the repository's console/ folder), and the page it serves. */
const CONSOLE_DIR = fileURLToPath(new URL('../../../console/', import.meta.url))
export const CONSOLE_PREFIX = '/console'
/** The module of the server's vocabularies (vocabulary.ts), beside the console's own files. */
const VOCABULARY_FILE = 'vocabulary.js'

/**
 * Third-party modules the browser imports, served from node_modules as they are installed (no
 * bundler, no build step, no CDN): URL under /console/vendor/ → the installed file. zxing-wasm's
 * reader keeps its layout because it imports `../share.js` and fetches its .wasm by file name.
 */
function vendorFiles(): Map<string, string> {
  const file = (specifier: string) => fileURLToPath(import.meta.resolve(specifier))
  const zxingReader = file('zxing-wasm/reader')
  const zxingDist = path.resolve(path.dirname(zxingReader), '../..')
  return new Map([
    ['vendor/preact.mjs', file('preact')],
    ['vendor/preact-hooks.mjs', file('preact/hooks')],
    ['vendor/htm.mjs', file('htm')],
    ['vendor/dompurify.mjs', file('dompurify')],
    ['vendor/zxing/es/reader/index.js', zxingReader],
    ['vendor/zxing/es/share.js', path.join(zxingDist, 'es/share.js')],
    ['vendor/zxing/reader/zxing_reader.wasm', path.join(zxingDist, 'reader/zxing_reader.wasm')],
  ])
}

/** The bare specifiers the console's modules import, resolved by the page's import map. */
const IMPORTS = {
  preact: `${CONSOLE_PREFIX}/vendor/preact.mjs`,
  'preact/hooks': `${CONSOLE_PREFIX}/vendor/preact-hooks.mjs`,
  htm: `${CONSOLE_PREFIX}/vendor/htm.mjs`,
  dompurify: `${CONSOLE_PREFIX}/vendor/dompurify.mjs`,
  'zxing-wasm/reader': `${CONSOLE_PREFIX}/vendor/zxing/es/reader/index.js`,
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
}

interface Asset {
  body: Buffer
  type: string
  etag: string
}

function asset(body: Buffer, file: string): Asset {
  return {
    body,
    type: TYPES[path.extname(file)] ?? 'application/octet-stream',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  }
}

/** Every file of console/ (but the page template), by its path under /console/. */
function ownFiles(dir: string, under = ''): Array<[string, string]> {
  return readdirSync(path.join(dir, under), { withFileTypes: true }).flatMap((entry) => {
    const rel = under ? `${under}/${entry.name}` : entry.name
    if (entry.isDirectory()) return ownFiles(dir, rel)
    return rel === 'index.html' ? [] : [[rel, path.join(dir, rel)] as [string, string]]
  })
}

/**
 * The console's files, read once at start (a few hundred KB; the .wasm is the largest): a fixed
 * table, so no request path ever reaches the file system.
 */
export function consoleAssets(
  apiPrefix: string,
  webhooksPrefix: string,
): { page: Asset; files: Map<string, Asset>; scriptHash: string } {
  const files = new Map<string, Asset>()
  for (const [url, file] of [...ownFiles(CONSOLE_DIR), ...vendorFiles()])
    files.set(url, asset(readFileSync(file), file))
  // Generated, not read: the server's vocabularies, served and revalidated like the files.
  files.set(VOCABULARY_FILE, asset(Buffer.from(vocabularyModule()), VOCABULARY_FILE))
  // The import map is the one inline script: the CSP allows it by its hash, nothing else inline.
  const importMap = JSON.stringify({ imports: IMPORTS })
  const scriptHash = `'sha256-${createHash('sha256').update(importMap).digest('base64')}'`
  const template = readFileSync(path.join(CONSOLE_DIR, 'index.html'), 'utf8')
  const html = template
    .replace('<!--importmap-->', `<script type="importmap">${importMap}</script>`)
    .replace('%API_PREFIX%', apiPrefix.replace(/[^A-Za-z0-9/_-]/g, ''))
    .replace('%WEBHOOKS_PREFIX%', webhooksPrefix.replace(/[^A-Za-z0-9/_-]/g, ''))
  return { page: asset(Buffer.from(html), 'index.html'), files, scriptHash }
}

/**
 * The console's CSP: its own scripts (the import map by hash), WebAssembly compiled from its own
 * .wasm (zxing), images it uploads or shows (blob:, data: for the signature pad's PNG), the camera
 * stream, and calls to this origin only. Nothing may frame it.
 */
function consoleCsp(scriptHash: string) {
  return {
    defaultSrc: ["'self'"],
    scriptSrc: ["'self'", "'wasm-unsafe-eval'", scriptHash],
    scriptSrcAttr: ["'none'"],
    styleSrc: ["'self'"],
    imgSrc: ["'self'", 'data:', 'blob:'],
    mediaSrc: ["'self'", 'blob:'],
    connectSrc: ["'self'"],
    fontSrc: ["'self'"],
    objectSrc: ["'none'"],
    baseUri: ["'self'"],
    formAction: ["'self'"],
    frameAncestors: ["'none'"],
  }
}

/**
 * The browser console at /console: its static files and, for any other path under it that is not
 * a file name, the page itself (the app routes in the browser: /console/packages/ID loads it too).
 */
export const consoleRoutes: FastifyPluginAsync<{ apiPrefix: string; webhooksPrefix: string }> = async (
  app,
  { apiPrefix, webhooksPrefix },
) => {
  const { page, files, scriptHash } = consoleAssets(apiPrefix, webhooksPrefix)
  const config = { helmet: { contentSecurityPolicy: { useDefaults: false, directives: consoleCsp(scriptHash) } } }
  const send = (reply: FastifyReply, a: Asset, ifNoneMatch: string | undefined, cache: string) => {
    reply.header('content-type', a.type).header('cache-control', cache).header('etag', a.etag)
    if (ifNoneMatch === a.etag) return reply.code(304).send()
    return reply.send(a.body)
  }
  const schema = { hide: true }
  // The page is small and names the current files: never cached, so a new version shows at once.
  app.get(CONSOLE_PREFIX, { config, schema }, async (request, reply) =>
    send(reply, page, request.headers['if-none-match'], 'no-store'),
  )
  app.get(`${CONSOLE_PREFIX}/*`, { config, schema }, async (request, reply) => {
    const rest = (request.params as { '*': string })['*']
    const file = files.get(rest)
    // Files are revalidated (ETag) rather than cached for a time: an upgrade never mixes versions.
    if (file) return send(reply, file, request.headers['if-none-match'], 'no-cache')
    if (rest.startsWith('api/') || /\.[a-z0-9]+$/i.test(rest))
      return reply.code(404).send({ message: `No console file ${CONSOLE_PREFIX}/${rest}.` })
    return send(reply, page, request.headers['if-none-match'], 'no-store')
  })
}
