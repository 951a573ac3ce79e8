import type { S3Client } from '@aws-sdk/client-s3'
import type { Readable } from 'node:stream'
import type { BlobStoreConfig } from './blob-stores.js'
import { checkKey, type BlobStore, type OpenedBlob } from './blob-store.js'

/** BLOB_STORE_URL and the credentials, as config.ts parsed them. */
type S3Location = Omit<Extract<BlobStoreConfig, { kind: 's3' }>, 'kind'>

type Sdk = typeof import('@aws-sdk/client-s3')

const isMissing = (sdk: Sdk, e: unknown) =>
  e instanceof sdk.S3ServiceException &&
  (e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata.httpStatusCode === 404)

/** Image bytes in an S3-compatible bucket (BLOB_STORE_URL=s3://…): shared by every process, streamed on read. */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3'
  // The SDK (about a megabyte of modules) is loaded only by a process that stores images in S3.
  readonly #s3: Promise<{ sdk: Sdk; client: S3Client }>

  constructor(private readonly at: S3Location) {
    this.#s3 = import('@aws-sdk/client-s3').then((sdk) => ({ sdk, client: this.#makeClient(sdk) }))
  }

  #makeClient(sdk: Sdk): S3Client {
    const at = this.at
    return new sdk.S3Client({
      region: at.region,
      ...(at.endpoint ? { endpoint: at.endpoint } : {}),
      forcePathStyle: at.forcePathStyle,
      ...(at.credentials ? { credentials: at.credentials } : {}),
      // Checksums only where the API demands them: many S3-compatible servers reject the SDK's
      // default trailing CRC headers, and the response stream stays the socket's, unwrapped.
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    })
  }

  #key(key: string): string {
    return `${this.at.prefix}${checkKey(key)}`
  }

  async put(key: string, bytes: Uint8Array): Promise<void> {
    const { sdk, client } = await this.#s3
    await client.send(
      new sdk.PutObjectCommand({
        Bucket: this.at.bucket,
        Key: this.#key(key),
        Body: bytes,
        ContentLength: bytes.byteLength,
      }),
    )
  }

  async open(key: string): Promise<OpenedBlob | undefined> {
    const { sdk, client } = await this.#s3
    try {
      const out = await client.send(new sdk.GetObjectCommand({ Bucket: this.at.bucket, Key: this.#key(key) }))
      // On Node the body is the HTTP response itself: bytes flow from the bucket to the client as it reads.
      return { size: Number(out.ContentLength), stream: out.Body as Readable }
    } catch (e) {
      if (isMissing(sdk, e)) return undefined
      throw e
    }
  }

  async has(key: string): Promise<boolean> {
    const { sdk, client } = await this.#s3
    try {
      await client.send(new sdk.HeadObjectCommand({ Bucket: this.at.bucket, Key: this.#key(key) }))
      return true
    } catch (e) {
      if (isMissing(sdk, e)) return false
      throw e
    }
  }

  async delete(key: string): Promise<void> {
    const { sdk, client } = await this.#s3
    await client.send(new sdk.DeleteObjectCommand({ Bucket: this.at.bucket, Key: this.#key(key) }))
  }

  close(): void {
    // A store whose SDK never loaded has no client to destroy (its operations said why).
    this.#s3.then(
      ({ client }) => client.destroy(),
      () => {},
    )
  }
}
