/**
 * The storage interface both drivers implement. Keys are server-generated object names
 * (`incoming/<path>` while an upload is unverified, `files/<path>` once verified); no key
 * is ever built from client input, and every driver re-checks the shape before use.
 * @module
 */
import { downloadName } from "../names.ts";

/** A signed, short-lived upload target. */
export interface SignedUpload {
  /** Where the client PUTs the raw bytes. */
  url: string;
  /** Sent as `Authorization: Bearer <token>` on the PUT (local driver only). */
  token?: string;
  /** Epoch ms after which the URL no longer works. */
  expiresAt: number;
}

/** A signed, short-lived download link. */
export interface SignedDownload {
  url: string;
  /** Epoch ms after which the URL no longer works. */
  expiresAt: number;
}

/** What a HEAD tells about a stored object. */
export interface ObjectInfo {
  size: number;
  /** Opaque version tag; reads and copies conditioned on it never see another version. */
  etag?: string;
}

/** Object storage behind one interface: `local` (files) or `s3` (any S3-compatible store). */
export interface Storage {
  readonly driver: "local" | "s3";
  /** Signs a PUT of exactly `size` bytes of `contentType` to `key`, valid `ttlSec` seconds. */
  signUpload(key: string, contentType: string, size: number, ttlSec: number): Promise<SignedUpload>;
  /** Signs a GET of `key` served as an attachment named `filename`. */
  signDownload(
    key: string,
    opts: { filename: string; contentType: string; ttlSec: number },
  ): Promise<SignedDownload>;
  /** Size and version of an object, or null when it does not exist. */
  head(key: string): Promise<ObjectInfo | null>;
  /** The first `n` bytes (fewer if the object is shorter) of the version `etag`. */
  readStart(key: string, n: number, etag?: string): Promise<Uint8Array>;
  /** The whole object (version `etag`) as a stream, for scans that must see every byte. */
  readStream(key: string, etag?: string): Promise<ReadableStream<Uint8Array>>;
  /** Moves `from` to `to` (only the version `etag`, where the driver can condition it). */
  promote(from: string, to: string, etag?: string): Promise<void>;
  /** Deletes an object; deleting a missing one succeeds. */
  delete(key: string): Promise<void>;
  /** Stores bytes directly (server-side uploads such as the no-JS multipart path). */
  write(key: string, bytes: Uint8Array, contentType: string): Promise<void>;
  /** Releases network clients, if any. */
  close?(): void;
}

/** Object keys: a stage, a form id and a file id, each from a closed alphabet. */
const KEY = /^(incoming|files)\/[A-Za-z0-9_-]{1,64}\/[A-Za-z0-9_-]{1,80}$/;

/** Whether `key` is a well-formed server-generated object key. */
export function isStorageKey(key: string): boolean {
  return KEY.test(key);
}

/** Throws unless `key` is a well-formed server-generated object key (defence in depth). */
export function assertKey(key: string): void {
  if (!isStorageKey(key)) throw new Error("invalid storage key");
}

/**
 * A `Content-Disposition: attachment` value safe for any original name (RFC 6266): the
 * name with the extension of the verified `contentType` (lib/uploads/names.ts), as a quoted
 * ASCII fallback plus the RFC 5987 UTF-8 form only when the name needs it.
 */
export function attachmentDisposition(original: string, contentType: string): string {
  const filename = downloadName(original, contentType);
  const ascii = filename.replace(/[^\x20-\x7e]/g, "_").replace(/["\\]/g, "_") || "file";
  const plain = `attachment; filename="${ascii}"`;
  return ascii === filename ? plain : `${plain}; filename*=UTF-8''${encodeRfc5987(filename)}`;
}

function encodeRfc5987(s: string): string {
  return encodeURIComponent(s).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
}
