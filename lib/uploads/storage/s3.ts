/**
 * The `s3` driver: any S3-compatible store through `@aws-sdk/client-s3`. Upload URLs are
 * presigned PUTs with `content-type` and `content-length` among the signed headers, so
 * the store itself refuses another type or one byte more or less; download URLs are
 * presigned GETs that force `Content-Disposition: attachment` and the verified type.
 * @module
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from "@aws-sdk/client-s3";
import { getSignedUrl } from "@aws-sdk/s3-request-presigner";
import type { Config } from "@/lib/config.ts";
import {
  assertKey,
  attachmentDisposition,
  type ObjectInfo,
  type SignedDownload,
  type SignedUpload,
  type Storage,
} from "./storage.ts";

/** S3 caps presigned URLs at 7 days; we never sign for more than 15 minutes. */
const MAX_TTL_SEC = 15 * 60;

/** An S3 bucket behind the storage interface. */
export class S3Storage implements Storage {
  readonly driver = "s3" as const;
  readonly #client: S3Client;
  readonly #bucket: string;
  readonly #now: () => number;

  constructor(s3: Config["s3"], now: () => number = Date.now) {
    if (!s3.bucket) throw new Error("S3_BUCKET is required for STORAGE=s3");
    this.#bucket = s3.bucket;
    this.#now = now;
    this.#client = new S3Client({
      endpoint: s3.endpoint,
      region: s3.region,
      forcePathStyle: s3.forcePathStyle,
      credentials: s3.accessKeyId && s3.secretAccessKey
        ? { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey }
        : undefined,
      // Default CRC32 checksums would add unsigned-for-the-browser headers to presigned
      // PUTs and trip stores that do not implement them.
      requestChecksumCalculation: "WHEN_REQUIRED",
      responseChecksumValidation: "WHEN_REQUIRED",
    });
  }

  async signUpload(
    key: string,
    contentType: string,
    size: number,
    ttlSec: number,
  ): Promise<SignedUpload> {
    assertKey(key);
    const expiresIn = Math.min(ttlSec, MAX_TTL_SEC);
    const signingDate = new Date(this.#now());
    const url = await getSignedUrl(
      this.#client,
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        ContentType: contentType,
        ContentLength: size,
      }),
      { expiresIn, signingDate, signableHeaders: new Set(["content-type", "content-length"]) },
    );
    return { url, expiresAt: signingDate.getTime() + expiresIn * 1000 };
  }

  async signDownload(
    key: string,
    opts: { filename: string; contentType: string; ttlSec: number },
  ): Promise<SignedDownload> {
    assertKey(key);
    const expiresIn = Math.min(opts.ttlSec, MAX_TTL_SEC);
    const signingDate = new Date(this.#now());
    const url = await getSignedUrl(
      this.#client,
      new GetObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        ResponseContentDisposition: attachmentDisposition(opts.filename, opts.contentType),
        ResponseContentType: opts.contentType,
        ResponseCacheControl: "private, no-store",
      }),
      { expiresIn, signingDate },
    );
    return { url, expiresAt: signingDate.getTime() + expiresIn * 1000 };
  }

  async head(key: string): Promise<ObjectInfo | null> {
    assertKey(key);
    try {
      const res = await this.#client.send(
        new HeadObjectCommand({ Bucket: this.#bucket, Key: key }),
      );
      return { size: res.ContentLength ?? 0, etag: res.ETag };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async readStart(key: string, n: number, etag?: string): Promise<Uint8Array> {
    assertKey(key);
    const res = await this.#client.send(
      new GetObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        Range: `bytes=0-${Math.max(0, n - 1)}`,
        IfMatch: etag,
      }),
    );
    const bytes = (await res.Body?.transformToByteArray()) ?? new Uint8Array();
    return bytes.subarray(0, n);
  }

  async readStream(key: string, etag?: string): Promise<ReadableStream<Uint8Array>> {
    assertKey(key);
    const res = await this.#client.send(
      new GetObjectCommand({ Bucket: this.#bucket, Key: key, IfMatch: etag }),
    );
    return res.Body?.transformToWebStream() as ReadableStream<Uint8Array> ??
      new ReadableStream({ start: (c) => c.close() });
  }

  async promote(from: string, to: string, etag?: string): Promise<void> {
    assertKey(from);
    assertKey(to);
    // Copy only the version that was verified: a re-PUT to the still-valid upload URL
    // after verification lands in `from`, never in `to`.
    await this.#client.send(
      new CopyObjectCommand({
        Bucket: this.#bucket,
        Key: to,
        CopySource: `${this.#bucket}/${from}`,
        CopySourceIfMatch: etag,
      }),
    );
    await this.delete(from);
  }

  async delete(key: string): Promise<void> {
    assertKey(key);
    try {
      await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
    } catch (err) {
      if (!isNotFound(err)) throw err;
    }
  }

  async write(key: string, bytes: Uint8Array, contentType: string): Promise<void> {
    assertKey(key);
    await this.#client.send(
      new PutObjectCommand({
        Bucket: this.#bucket,
        Key: key,
        Body: bytes,
        ContentType: contentType,
        ContentLength: bytes.byteLength,
      }),
    );
  }

  /** Releases the client's sockets (tests close it so Deno's sanitizers stay quiet). */
  close(): void {
    this.#client.destroy();
  }
}

function isNotFound(err: unknown): boolean {
  const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e?.name === "NotFound" || e?.name === "NoSuchKey" ||
    e?.$metadata?.httpStatusCode === 404;
}
