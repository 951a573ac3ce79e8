import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3'
import type { Readable } from 'node:stream'
import type { BlobStoreConfig } from './blob-stores.js'
import { checkKey, type BlobStore, type OpenedBlob } from './blob-store.js'

/** BLOB_STORE_URL and the credentials, as config.ts parsed them. */
type S3Location = Omit<Extract<BlobStoreConfig, { kind: 's3' }>, 'kind'>

const isMissing = (e: unknown) =>
  e instanceof S3ServiceException &&
  (e.name === 'NoSuchKey' || e.name === 'NotFound' || e.$metadata.httpStatusCode === 404)

/** Image bytes in an S3-compatible bucket (BLOB_STORE_URL=s3://…): shared by every process, streamed on read. */
export class S3BlobStore implements BlobStore {
  readonly kind = 's3'
  readonly #client: S3Client

  constructor(private readonly at: S3Location) {
    this.#client = new S3Client({
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
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.at.bucket,
        Key: this.#key(key),
        Body: bytes,
        ContentLength: bytes.byteLength,
      }),
    )
  }

  async open(key: string): Promise<OpenedBlob | undefined> {
    try {
      const out = await this.#client.send(new GetObjectCommand({ Bucket: this.at.bucket, Key: this.#key(key) }))
      // On Node the body is the HTTP response itself: bytes flow from the bucket to the client as it reads.
      return { size: Number(out.ContentLength), stream: out.Body as Readable }
    } catch (e) {
      if (isMissing(e)) return undefined
      throw e
    }
  }

  async has(key: string): Promise<boolean> {
    try {
      await this.#client.send(new HeadObjectCommand({ Bucket: this.at.bucket, Key: this.#key(key) }))
      return true
    } catch (e) {
      if (isMissing(e)) return false
      throw e
    }
  }

  async delete(key: string): Promise<void> {
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.at.bucket, Key: this.#key(key) }))
  }

  close(): void {
    this.#client.destroy()
  }
}
