import type { BlobStoreConfig } from '../../images/index.js'
import type { Env } from './index.js'

const BUCKET = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/
const S3_OPTIONS = new Set(['endpoint', 'region', 'forcePathStyle'])

/** BLOB_STORE and its companions: the store, or the problems (credentials are never echoed). */
export function blobStoreOf(env: Env): { store?: BlobStoreConfig; problems: string[] } {
  const problems: string[] = []
  const url = env.BLOB_STORE_URL
  const kind = env.BLOB_STORE === 'auto' && url ? 's3' : env.BLOB_STORE
  if (url && kind !== 's3') problems.push(`BLOB_STORE_URL: only for BLOB_STORE=s3 (or auto), not ${kind}`)
  if (!!env.BLOB_STORE_ACCESS_KEY_ID !== !!env.BLOB_STORE_SECRET_ACCESS_KEY)
    problems.push('BLOB_STORE_ACCESS_KEY_ID / BLOB_STORE_SECRET_ACCESS_KEY: set both or neither')
  if (kind !== 's3') return { store: { kind }, problems }
  if (!url)
    return { problems: [...problems, 'BLOB_STORE_URL: BLOB_STORE=s3 needs s3://bucket[/prefix][?endpoint=…&region=…]'] }
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    return { problems: [...problems, `BLOB_STORE_URL=${JSON.stringify(url)}: not a URL`] }
  }
  if (parsed.username || parsed.password)
    problems.push(
      'BLOB_STORE_URL: credentials go in BLOB_STORE_ACCESS_KEY_ID / BLOB_STORE_SECRET_ACCESS_KEY, not in the URL',
    )
  if (!BUCKET.test(parsed.hostname) || parsed.port)
    problems.push(`BLOB_STORE_URL: ${JSON.stringify(parsed.hostname)} is not a bucket name`)
  for (const k of parsed.searchParams.keys())
    if (!S3_OPTIONS.has(k)) problems.push(`BLOB_STORE_URL: unknown option ${k} (endpoint, region, forcePathStyle)`)
  const endpoint = parsed.searchParams.get('endpoint') ?? undefined
  if (endpoint !== undefined && !/^https?:\/\/[^/?#]+\/?$/.test(endpoint))
    problems.push(`BLOB_STORE_URL: endpoint=${JSON.stringify(endpoint)} must be http(s)://host[:port]`)
  const pathStyle = parsed.searchParams.get('forcePathStyle')
  if (pathStyle !== null && pathStyle !== 'true' && pathStyle !== 'false')
    problems.push('BLOB_STORE_URL: forcePathStyle must be true or false')
  const prefix = decodeURIComponent(parsed.pathname.replace(/^\/+/, ''))
  if (problems.length > 0) return { problems }
  return {
    problems,
    store: {
      kind: 's3',
      bucket: parsed.hostname,
      prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`,
      endpoint,
      region: parsed.searchParams.get('region') ?? 'us-east-1',
      // S3-compatible servers mostly serve buckets as paths, not as host names.
      forcePathStyle: pathStyle === null ? endpoint !== undefined : pathStyle === 'true',
      credentials:
        env.BLOB_STORE_ACCESS_KEY_ID && env.BLOB_STORE_SECRET_ACCESS_KEY
          ? { accessKeyId: env.BLOB_STORE_ACCESS_KEY_ID, secretAccessKey: env.BLOB_STORE_SECRET_ACCESS_KEY }
          : undefined,
    },
  }
}
