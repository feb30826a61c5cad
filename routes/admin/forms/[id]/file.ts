/**
 * File downloads from the submission page: a short-lived signed link, only for a path
 * that the named submission of this form references.
 * @module
 */
import { errors } from "@/lib/errors.ts";
import { keys } from "@/lib/kv/keys.ts";
import { withKvRetry } from "@/lib/kv/kv.ts";
import type { Submission } from "@/lib/schemas.ts";
import { isPlausibleSubmissionId } from "@/lib/submissions/query.ts";
import { DOWNLOAD_TTL_SEC } from "@/lib/uploads/downloads.ts";
import { fileKey, type UploadGrant } from "@/lib/uploads/grants.ts";
import { previewResponse } from "@/lib/uploads/preview.ts";
import { allow, defineFor } from "@/routes/admin/_access.ts";

/** Who may use this page (routes/admin/_access.ts). */
export const access = allow.form({ GET: "viewer" });
const define = defineFor(access);

/**
 * GET `?sub=<id>&path=<path>` redirects to the signed download; with `&preview=1` it
 * answers a verified raster image inline (the submission page's preview), else 404.
 */
export const handler = define.handlers({
  async GET(ctx) {
    const form = ctx.form;
    const subId = ctx.url.searchParams.get("sub") ?? "";
    const path = ctx.url.searchParams.get("path") ?? "";
    const notFound = () => errors.notFound("File not found.");
    if (!isPlausibleSubmissionId(subId)) throw notFound();
    const sub = (await withKvRetry(() =>
      ctx.deps.kv.get<Submission>(keys.submission(form.id, subId))
    )).value;
    if (!sub || !sub.files?.includes(path)) throw notFound();
    const grant =
      (await withKvRetry(() => ctx.deps.kv.get<UploadGrant>(keys.uploadGrant(path)))).value;
    if (!grant || grant.form_id !== form.id) throw notFound();
    if (ctx.url.searchParams.get("preview") === "1") {
      // Inline only for verified raster images (lib/uploads/preview.ts); else 404.
      const preview = await previewResponse(ctx.deps.storage, path, grant);
      if (!preview) throw notFound();
      return preview;
    }
    const signed = await ctx.deps.storage.signDownload(fileKey(path), {
      filename: grant.original_filename,
      contentType: grant.mime_type ?? "application/octet-stream",
      ttlSec: DOWNLOAD_TTL_SEC,
    });
    return ctx.c.redirect(signed.url, 303);
  },
});
