/**
 * After the PUT: verifying an upload's stored bytes once (the whole file, streamed) and
 * moving good bytes to their final key. Storage is charged when a submission attaches them.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { commitWithRetry, withKvRetry } from "@/lib/kv/kv.ts";
import {
  inspectBytes,
  type Inspection,
  isTextType,
  MARKUP_REASON,
  streamHasActiveContent,
} from "./checks.ts";
import { fileKey, incomingKey, type UploadGrant } from "./grants.ts";
import { scanUpload } from "./scan.ts";

/**
 * Bytes read from the start of a file to inspect it (magic bytes, text rule, markers); the
 * markers are also looked for in the rest of a longer file, streamed.
 */
export const HEAD_BYTES = 256 * 1024;

/**
 * Verifies an uploaded object once: size equal to the declaration, real type allowed for
 * the field, no markup anywhere, no virus (when `CLAMAV_URL` is set; clamd unreachable
 * throws the 503 `scanner_unavailable` and leaves the grant as it was). Good bytes move to their final key (only the version
 * inspected) and the grant is marked verified; bad bytes are deleted and the grant is
 * marked rejected with the reason. Verified bytes are not charged to the workspace yet:
 * that happens when a submission attaches them (see attachPart). A grant with nothing
 * uploaded yet is returned unchanged.
 */
export async function verifyUpload(
  deps: Deps,
  entry: Deno.KvEntry<UploadGrant>,
): Promise<UploadGrant> {
  const g = entry.value;
  if ((g.state !== "pending" && g.state !== "uploading") || deps.now() >= g.due_at) return g;
  const incoming = incomingKey(g.path);
  const info = await deps.storage.head(incoming);
  if (!info) return g;
  let verdict: Inspection;
  if (info.size !== g.size_bytes) {
    verdict = {
      ok: false,
      reason: `The upload has ${info.size} bytes; ${g.size_bytes} were declared.`,
    };
  } else {
    const head = await deps.storage.readStart(
      incoming,
      Math.min(g.size_bytes, HEAD_BYTES),
      info.etag,
    );
    verdict = await inspectBytes(head, g.size_bytes <= HEAD_BYTES, g.declared_type, g.allowed);
    // Past the head, markup is looked for in every byte as it streams.
    if (
      verdict.ok && g.size_bytes > HEAD_BYTES &&
      await streamHasActiveContent(
        await deps.storage.readStream(incoming, info.etag),
        isTextType(verdict.mimeType),
      )
    ) {
      verdict = { ok: false, reason: MARKUP_REASON };
    }
    // Only bytes that pass every other check are sent to the virus scanner (when on).
    if (verdict.ok) verdict = await scanUpload(deps, incoming, info.etag) ?? verdict;
  }
  try {
    if (verdict.ok) await deps.storage.promote(incoming, fileKey(g.path), info.etag);
    else await deps.storage.delete(incoming);
  } catch (err) {
    // A concurrent verification of the same grant may have moved the object first.
    const again = await withKvRetry(() => deps.kv.get<UploadGrant>(entry.key));
    if (again.value && again.value.state !== g.state) return again.value;
    throw err;
  }
  const { claimed_until: _, ...rest } = g;
  const next = await commitWithRetry(deps.kv, async (op) => {
    const cur = await deps.kv.get<UploadGrant>(entry.key);
    if (cur.versionstamp !== entry.versionstamp) return null; // someone else decided
    if (!verdict.ok) {
      const rejected: UploadGrant = {
        ...rest,
        state: "rejected",
        reason: verdict.reason,
        ...(verdict.infected ? { infected: true } : {}),
      };
      op.check(cur).set(entry.key, rejected);
      return rejected;
    }
    const verified: UploadGrant = { ...rest, state: "verified", mime_type: verdict.mimeType };
    op.check(cur).set(entry.key, verified);
    return verified;
  });
  if (next) return next;
  const fresh = (await withKvRetry(() => deps.kv.get<UploadGrant>(entry.key))).value;
  if (verdict.ok && fresh?.state !== "verified" && fresh?.state !== "attached") {
    // Cleanup removed the grant meanwhile: do not leave our copy behind as an orphan.
    await deps.storage.delete(fileKey(g.path));
  }
  return fresh ?? { ...g, state: "expired" };
}
