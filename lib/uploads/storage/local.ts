/**
 * The `local` driver: objects are files under `LOCAL_STORAGE_DIR`, uploaded and
 * downloaded through routes of the service itself. Uploads carry a short-lived JWT bound
 * to the object key, content type and exact size; downloads a short-lived JWT in the URL.
 * Keys are checked against a closed alphabet before they touch the filesystem, so no
 * path can leave the storage directory.
 * @module
 */
import { jwtVerify, SignJWT } from "jose";
import { AppError, errors } from "@/lib/errors.ts";
import { randomBase62 } from "@/lib/ids.ts";
import {
  assertKey,
  type ObjectInfo,
  type SignedDownload,
  type SignedUpload,
  type Storage,
} from "./storage.ts";

const PUT_AUDIENCE = "formwell:storage:put";
const GET_AUDIENCE = "formwell:storage:get";

/** What a valid upload token allows. */
export interface PutClaims {
  key: string;
  contentType: string;
  size: number;
}

/** What a valid download token allows. */
export interface GetClaims {
  key: string;
  contentType: string;
  filename: string;
}

/** Files on the local disk, served by the service's own routes. */
export class LocalStorage implements Storage {
  readonly driver = "local" as const;
  /** The HMAC key, imported once (jose would import the raw secret on every call). */
  #key?: Promise<CryptoKey>;

  constructor(
    private readonly dir: string,
    private readonly baseUrl: string,
    private readonly secret: Uint8Array,
    private readonly now: () => number = Date.now,
  ) {}

  async signUpload(
    key: string,
    contentType: string,
    size: number,
    ttlSec: number,
  ): Promise<SignedUpload> {
    assertKey(key);
    const expiresAt = this.now() + ttlSec * 1000;
    const token = await this.#sign({ k: key, ct: contentType, n: size }, PUT_AUDIENCE, expiresAt);
    return { url: `${this.baseUrl}/api/v1/uploads/${stripStage(key)}`, token, expiresAt };
  }

  async signDownload(
    key: string,
    opts: { filename: string; contentType: string; ttlSec: number },
  ): Promise<SignedDownload> {
    assertKey(key);
    const expiresAt = this.now() + opts.ttlSec * 1000;
    const token = await this.#sign(
      { k: key, ct: opts.contentType, fn: opts.filename },
      GET_AUDIENCE,
      expiresAt,
    );
    return { url: `${this.baseUrl}/api/v1/files/${stripStage(key)}?token=${token}`, expiresAt };
  }

  /** Checks an upload token for `key`; anything wrong is 401 (the same for every reason). */
  async verifyPut(token: string, key: string): Promise<PutClaims> {
    const p = await this.#verify(token, PUT_AUDIENCE);
    if (p.k !== key || typeof p.ct !== "string" || typeof p.n !== "number") throw denied();
    return { key, contentType: p.ct, size: p.n };
  }

  /** Checks a download token for `key`; anything wrong is 404 (nothing to learn). */
  async verifyGet(token: string, key: string): Promise<GetClaims> {
    try {
      const p = await this.#verify(token, GET_AUDIENCE);
      if (p.k !== key || typeof p.ct !== "string" || typeof p.fn !== "string") throw denied();
      return { key, contentType: p.ct, filename: p.fn };
    } catch {
      throw errors.notFound("File not found or link expired.");
    }
  }

  /**
   * Streams a request body of exactly `size` bytes into `key` (via a temporary file and a
   * rename, so a reader never sees half a file). More bytes are 413, fewer are 400.
   */
  async receive(key: string, body: ReadableStream<Uint8Array> | null, size: number): Promise<void> {
    const target = this.#file(key);
    await Deno.mkdir(dirOf(target), { recursive: true });
    const temp = `${target}.${randomBase62(8)}.part`;
    const file = await Deno.open(temp, { write: true, createNew: true });
    let total = 0;
    try {
      if (body) {
        for await (const chunk of body) {
          total += chunk.byteLength;
          if (total > size) {
            throw errors.payloadTooLarge(`The upload is larger than the ${size} bytes signed.`);
          }
          let off = 0;
          while (off < chunk.byteLength) off += await file.write(chunk.subarray(off));
        }
      }
      if (total !== size) {
        throw errors.badRequest(`The upload has ${total} bytes; ${size} were signed.`);
      }
      file.close();
      await Deno.rename(temp, target);
    } catch (err) {
      try {
        file.close();
      } catch { /* already closed */ }
      await Deno.remove(temp).catch(() => {});
      if (err instanceof AppError) throw err;
      throw errors.badRequest("The upload could not be read.");
    }
  }

  /** Opens an object for streaming, or null when it does not exist. */
  async open(key: string): Promise<{ stream: ReadableStream<Uint8Array>; size: number } | null> {
    try {
      const f = await Deno.open(this.#file(key), { read: true });
      const info = await f.stat();
      return { stream: f.readable, size: info.size };
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
  }

  async head(key: string): Promise<ObjectInfo | null> {
    try {
      const s = await Deno.stat(this.#file(key));
      return { size: s.size, etag: `${s.mtime?.getTime() ?? 0}-${s.size}` };
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return null;
      throw err;
    }
  }

  async readStart(key: string, n: number): Promise<Uint8Array> {
    using f = await Deno.open(this.#file(key), { read: true });
    const buf = new Uint8Array(n);
    let off = 0;
    while (off < n) {
      const got = await f.read(buf.subarray(off));
      if (got === null) break;
      off += got;
    }
    return buf.subarray(0, off);
  }

  async readStream(key: string): Promise<ReadableStream<Uint8Array>> {
    const f = await Deno.open(this.#file(key), { read: true });
    return f.readable;
  }

  async promote(from: string, to: string): Promise<void> {
    const target = this.#file(to);
    await Deno.mkdir(dirOf(target), { recursive: true });
    await Deno.rename(this.#file(from), target);
  }

  async delete(key: string): Promise<void> {
    await Deno.remove(this.#file(key)).catch((err) => {
      if (!(err instanceof Deno.errors.NotFound)) throw err;
    });
  }

  async write(key: string, bytes: Uint8Array): Promise<void> {
    const target = this.#file(key);
    await Deno.mkdir(dirOf(target), { recursive: true });
    const temp = `${target}.${randomBase62(8)}.part`;
    await Deno.writeFile(temp, bytes, { createNew: true });
    await Deno.rename(temp, target);
  }

  #file(key: string): string {
    assertKey(key);
    return `${this.dir.replace(/\/+$/, "")}/${key}`;
  }

  async #sign(claims: Record<string, unknown>, aud: string, expiresAt: number): Promise<string> {
    return await new SignJWT(claims)
      .setProtectedHeader({ alg: "HS256" })
      .setAudience(aud)
      .setIssuedAt(Math.floor(this.now() / 1000))
      .setExpirationTime(Math.floor(expiresAt / 1000))
      .sign(await this.#hmacKey());
  }

  #hmacKey(): Promise<CryptoKey> {
    this.#key ??= crypto.subtle.importKey(
      "raw",
      this.secret as Uint8Array<ArrayBuffer>,
      { name: "HMAC", hash: "SHA-256" },
      false,
      ["sign", "verify"],
    );
    return this.#key;
  }

  async #verify(token: string, aud: string): Promise<Record<string, unknown>> {
    try {
      const { payload } = await jwtVerify(token, await this.#hmacKey(), {
        audience: aud,
        algorithms: ["HS256"],
        currentDate: new Date(this.now()),
        clockTolerance: 0,
      });
      return payload;
    } catch {
      throw denied();
    }
  }
}

function denied(): AppError {
  return new AppError(401, "unauthorized", "Invalid or expired storage token.");
}

/** `incoming/f1/x` -> `f1/x` (the URL names the file; the route adds the stage back). */
function stripStage(key: string): string {
  return key.slice(key.indexOf("/") + 1);
}

function dirOf(file: string): string {
  return file.slice(0, file.lastIndexOf("/"));
}
