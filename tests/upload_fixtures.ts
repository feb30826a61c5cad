/**
 * Upload test fixtures: both storage drivers (local, and S3 against a real
 * `@20minutes/s3rver` that verifies SigV4), sample files and request helpers.
 * @module
 */
import { readSubmission } from "@/lib/submissions/records.ts";
import assert from "node:assert/strict";
import S3rver from "@20minutes/s3rver";
import type { Deps } from "@/lib/deps.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import type { UploadGrant } from "@/lib/uploads/grants.ts";
import type { FormDefinition, Submission } from "@/lib/schemas.ts";
import { postJson, type TestEnv, testEnv } from "./helpers.ts";

/** The drivers every upload suite runs against. */
export const DRIVERS = ["local", "s3"] as const;
/** A storage driver name. */
export type Driver = typeof DRIVERS[number];

/** An environment with its storage (and, for s3, the server) to close afterwards. */
export interface UploadEnv {
  env: TestEnv;
  deps: Deps;
  driver: Driver;
  /** Shifts the service clock (ms); signatures and expiries follow it. */
  skew: { ms: number };
  close: () => Promise<void>;
}

/** Starts a test environment on `driver`; for s3 a fresh s3rver with the bucket. */
export async function uploadEnv(
  driver: Driver,
  env: Record<string, string> = {},
): Promise<UploadEnv> {
  const skew = { ms: 0 };
  const now = () => Date.now() + skew.ms;
  const limits = JSON.stringify({ upload_url: 100_000, submit: 100_000, workspace: 100_000 });
  if (driver === "local") {
    const t = await testEnv({ RATE_LIMITS: limits, ...env }, { now });
    return {
      env: t,
      deps: t.deps,
      driver,
      skew,
      close: async () => {
        t.close();
        await Deno.remove(t.deps.config.localStorageDir, { recursive: true }).catch(() => {});
      },
    };
  }
  const dir = await Deno.makeTempDir({ prefix: "formwell-s3rver-" });
  const server = new S3rver({
    address: "127.0.0.1",
    port: 0,
    silent: true,
    directory: dir,
    configureBuckets: [{ name: "formwell-test" }],
  });
  const addr = await server.run();
  const t = await testEnv({
    RATE_LIMITS: limits,
    STORAGE: "s3",
    S3_ENDPOINT: `http://127.0.0.1:${addr.port}`,
    S3_REGION: "us-east-1",
    S3_BUCKET: "formwell-test",
    S3_ACCESS_KEY_ID: "S3RVER",
    S3_SECRET_ACCESS_KEY: "S3RVER",
    S3_FORCE_PATH_STYLE: "1",
    ...env,
  }, { now });
  return {
    env: t,
    deps: t.deps,
    driver,
    skew,
    close: async () => {
      t.close();
      await server.close();
      await Deno.remove(dir, { recursive: true }).catch(() => {});
    },
  };
}

/** A form with the file-like fields the suites use. */
export const FILES_FORM: FormDefinition = {
  name: "Applications",
  fields: [
    { id: "fld_name", name: "name", type: "text" },
    {
      id: "fld_cv",
      name: "cv",
      type: "file",
      allowedTypes: ["application/pdf", "text/plain", "text/csv"],
      maxSizeMB: 1,
    },
    { id: "fld_photo", name: "photo", type: "image" },
    { id: "fld_any", name: "any", type: "file" },
  ],
};

/** UTF-8 bytes of a string. */
export const enc = (s: string) => new TextEncoder().encode(s);
const b64 = (s: string) => Uint8Array.from(atob(s), (c) => c.charCodeAt(0));

/** Small real files of each kind. */
export const SAMPLES = {
  png: b64(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==",
  ),
  jpg: b64(
    "/9j/4AAQSkZJRgABAQEASABIAAD/2wBDAP//////////////////////////////////////////////////////////////////////////////////////wgALCAABAAEBAREA/8QAFBABAAAAAAAAAAAAAAAAAAAAAP/aAAgBAQABPxA=",
  ),
  gif: enc("GIF89a\x01\x00\x01\x00\x00\x00\x00;"),
  pdf: enc("%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n"),
  text: enc("Name,Score\nAda,10\nGrace,9\n"),
};

/** Joins byte arrays. */
export function concat(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.byteLength, 0));
  let off = 0;
  for (const p of parts) {
    out.set(p, off);
    off += p.byteLength;
  }
  return out;
}

/** The upload-URL response. */
export interface Grant {
  path: string;
  uploadUrl: string;
  uploadToken: string;
  storageToken?: string;
}

/** POSTs to the upload-URL endpoint. */
export function requestUpload(
  u: UploadEnv,
  formId: string,
  body: Record<string, unknown>,
  ip = "198.51.100.20",
): Promise<Response> {
  return u.env.request(`/api/v1/forms/p/${formId}/upload-url`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
    ip,
  });
}

/** A grant that must succeed. */
export async function grantFor(
  u: UploadEnv,
  formId: string,
  fieldId: string,
  fileName: string,
  contentType: string,
  size: number,
): Promise<Grant> {
  const res = await requestUpload(u, formId, { fieldId, fileName, contentType, sizeBytes: size });
  if (res.status !== 200) throw new Error(`upload-url ${res.status}: ${await res.text()}`);
  return await res.json();
}

/**
 * PUTs bytes to a grant's URL as a client would: to the app for the local driver, over
 * HTTP to s3rver for s3. `length` overrides the Content-Length header (local only: fetch
 * sets the real length). Returns the status, the body consumed.
 */
export async function putBytes(
  u: UploadEnv,
  g: Pick<Grant, "uploadUrl" | "storageToken">,
  bytes: Uint8Array,
  contentType: string,
  length?: number,
): Promise<number> {
  const headers: Record<string, string> = { "content-type": contentType };
  if (g.storageToken) headers.authorization = `Bearer ${g.storageToken}`;
  if (u.driver === "local") {
    headers["content-length"] = String(length ?? bytes.byteLength);
    const res = await u.env.app.request(g.uploadUrl, {
      method: "PUT",
      headers,
      body: bytes.slice(),
    });
    await res.body?.cancel();
    return res.status;
  }
  const res = await fetch(g.uploadUrl, { method: "PUT", headers, body: bytes.slice() });
  await res.body?.cancel();
  return res.status;
}

/** GETs a signed download URL (app for local, HTTP for s3). */
export async function getUrl(u: UploadEnv, url: string): Promise<Response> {
  return u.driver === "local" ? await u.env.app.request(url) : await fetch(url);
}

/** Submits `data` to a form as a browser would. */
export async function submitFiles(u: UploadEnv, formId: string, data: Record<string, unknown>) {
  const res = await postJson(u.env, `/api/v1/submit/p/${formId}`, { data });
  return { status: res.status, body: await res.json() };
}

/** A 422 whose items name `type` on `field`. */
export function assertFileError(
  r: { status: number; body: Record<string, unknown> },
  field: string,
) {
  assert.equal(r.status, 422, JSON.stringify(r.body));
  const items = r.body.errors as { field: string; type: string }[];
  assert.ok(items.some((i) => i.field === field && i.type === "file"), JSON.stringify(items));
}

/** A submission as stored. */
export async function storedSubmission(
  u: UploadEnv,
  formId: string,
  id: string,
): Promise<Submission> {
  return (await readSubmission(u.deps.kv, formId, id))!;
}

/** The workspace's `storage_used` counter in bytes. */
export async function storageUsed(u: UploadEnv, workspaceId: string): Promise<number> {
  return u64Value((await u.deps.kv.get(keys.storageUsed(workspaceId))).value);
}

/**
 * Asserts the workspace's counter is `base` plus the sizes of its counted grants (attached
 * ones; verified bytes wait in the pending pool uncharged); returns the counter.
 */
export async function assertCounterExact(
  u: UploadEnv,
  workspaceId: string,
  base = 0,
): Promise<number> {
  let sum = base;
  for await (const e of u.deps.kv.list<UploadGrant>({ prefix: keys.uploadGrants() })) {
    const g = e.value;
    if (
      g.workspace_id === workspaceId && g.counted &&
      (g.state === "verified" || g.state === "attached")
    ) {
      sum += g.size_bytes;
    }
  }
  const used = await storageUsed(u, workspaceId);
  assert.equal(used, sum, "storage_used must equal the attached bytes");
  return used;
}

/** Tampers with the signature of an upload: the local token's or the URL's. */
export function tamper(u: UploadEnv, g: Grant): Grant {
  if (u.driver === "local") {
    const t = g.storageToken!;
    const dot = t.lastIndexOf(".");
    return { ...g, storageToken: t.slice(0, dot + 1) + flip(t.slice(dot + 1)) };
  }
  return { ...g, uploadUrl: tamperUrl(g.uploadUrl) };
}

/** Flips one signature character in the middle (never the padding bits at the end). */
export function flip(sig: string): string {
  const i = Math.floor(sig.length / 2);
  return sig.slice(0, i) + (sig[i] === "A" ? "B" : "A") + sig.slice(i + 1);
}

/** Tampers with a signed download link's signature (local token or SigV4). */
export function tamperUrl(raw: string): string {
  const url = new URL(raw);
  const param = url.searchParams.has("token") ? "token" : "X-Amz-Signature";
  const value = url.searchParams.get(param)!;
  const dot = value.lastIndexOf(".");
  url.searchParams.set(
    param,
    dot > 0 ? value.slice(0, dot + 1) + flip(value.slice(dot + 1)) : flip(value),
  );
  return url.toString();
}

/** An MZ/PE header: what file-type reports as application/x-msdownload. */
export function exeBytes(): Uint8Array {
  const b = new Uint8Array(512);
  b.set(enc("MZ"), 0);
  b[0x3c] = 0x80;
  b.set(enc("PE\0\0"), 0x80);
  return b;
}
