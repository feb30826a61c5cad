/**
 * The local driver's two routes: the PUT that receives an upload (token bound to path,
 * type and exact size; one PUT per grant; verified at once) and the signed download
 * (attachment, nosniff, sandboxed). Only mounted in effect when `STORAGE=local`.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { getForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import { LocalStorage } from "@/lib/uploads/storage/local.ts";
import { attachmentDisposition } from "@/lib/uploads/storage/storage.ts";
import { uploadBody } from "@/lib/http/body.ts";
import { normaliseType } from "@/lib/rules/files.ts";
import { verifyUpload } from "./files.ts";
import {
  fileError,
  fileKey,
  incomingKey,
  isUploadPath,
  rejectionError,
  UPLOAD_URL_TTL_SEC,
  type UploadGrant,
} from "./grants.ts";

function local(deps: Deps): LocalStorage {
  if (!(deps.storage instanceof LocalStorage)) throw errors.notFound();
  return deps.storage;
}

/** The result of an accepted local PUT. */
export interface PutResult {
  path: string;
  mimeType: string;
  sizeBytes: number;
}

/**
 * PUT /api/v1/uploads/<path>: checks the storage token (401), that the request's
 * Content-Type and Content-Length are the signed ones (403), that the grant still waits
 * for its bytes (409), then stores and verifies them (422 type `file` when refused).
 */
export async function receiveLocalUpload(
  deps: Deps,
  path: string,
  req: Request,
): Promise<PutResult> {
  const storage = local(deps);
  if (!isUploadPath(path)) throw errors.notFound();
  const m = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get("authorization") ?? "");
  if (!m) throw new AppError(401, "unauthorized", "Send Authorization: Bearer <storageToken>.");
  const claims = await storage.verifyPut(m[1], incomingKey(path));
  const sent = normaliseType(req.headers.get("content-type") ?? "");
  if (!sent || sent !== normaliseType(claims.contentType)) {
    throw new AppError(403, "forbidden", `Content-Type must be ${claims.contentType} as signed.`);
  }
  const length = req.headers.get("content-length");
  if (length === null) throw new AppError(411, "bad_request", "Content-Length is required.");
  if (Number(length) !== claims.size) {
    throw new AppError(403, "forbidden", `Content-Length must be ${claims.size} as signed.`);
  }
  const entry = await claim(deps, path);
  try {
    await storage.receive(incomingKey(path), uploadBody(req, claims.size), claims.size);
  } catch (err) {
    await release(deps, path);
    throw err;
  }
  const fresh = await withKvRetry(() => deps.kv.get<UploadGrant>(entry.key));
  if (!fresh.value) throw errors.notFound();
  const g = await verifyUpload(deps, fresh as Deno.KvEntry<UploadGrant>);
  if (g.state !== "verified") {
    const form = await getForm(deps, g.form_id);
    const field = form?.fields.find((f) => f.id === g.field_id) ??
      { id: g.field_id, name: g.field_id } as Parameters<typeof fileError>[0];
    throw errors.validation([rejectionError(field, g)]);
  }
  return { path, mimeType: g.mime_type!, sizeBytes: g.size_bytes };
}

/** Takes the grant for one PUT: only a pending grant (or a stale claim) can be taken. */
async function claim(deps: Deps, path: string): Promise<Deno.KvEntry<UploadGrant>> {
  const entry = await withKvRetry(() => deps.kv.get<UploadGrant>(keys.uploadGrant(path)));
  const g = entry.value;
  const now = deps.now();
  if (!g || g.state === "expired" || now >= g.due_at) throw errors.notFound();
  const stale = g.state === "uploading" && (g.claimed_until ?? 0) <= now;
  if (g.state !== "pending" && !stale) {
    throw new AppError(409, "conflict", "This upload was already received.");
  }
  const next: UploadGrant = {
    ...g,
    state: "uploading",
    claimed_until: now + UPLOAD_URL_TTL_SEC * 1000,
  };
  const res = await withKvRetry(() => deps.kv.atomic().check(entry).set(entry.key, next).commit());
  if (!res.ok) throw new AppError(409, "conflict", "This upload is already in progress.");
  return { ...entry, value: next, versionstamp: res.versionstamp };
}

/** Gives a failed PUT's claim back so the client can retry with the same URL. */
async function release(deps: Deps, path: string): Promise<void> {
  const entry = await withKvRetry(() => deps.kv.get<UploadGrant>(keys.uploadGrant(path)));
  if (entry.value?.state !== "uploading") return;
  const { claimed_until: _, ...rest } = entry.value;
  await withKvRetry(() =>
    deps.kv.atomic().check(entry).set(entry.key, { ...rest, state: "pending" }).commit()
  );
}

/**
 * GET /api/v1/files/<path>?token=: streams a verified file as an attachment with the
 * verified type, `nosniff` and a sandboxing CSP; a bad or expired link is 404.
 */
export async function serveLocalDownload(
  deps: Deps,
  path: string,
  token: string | undefined,
): Promise<Response> {
  const storage = local(deps);
  if (!isUploadPath(path) || !token) throw errors.notFound("File not found or link expired.");
  const claims = await storage.verifyGet(token, fileKey(path));
  const file = await storage.open(fileKey(path));
  if (!file) throw errors.notFound("File not found or link expired.");
  return new Response(file.stream, {
    headers: {
      "Content-Type": claims.contentType,
      "Content-Length": String(file.size),
      "Content-Disposition": attachmentDisposition(claims.filename, claims.contentType),
      "X-Content-Type-Options": "nosniff",
      "Content-Security-Policy": "default-src 'none'; sandbox",
      "Cache-Control": "private, no-store",
      "Referrer-Policy": "no-referrer",
    },
  });
}
