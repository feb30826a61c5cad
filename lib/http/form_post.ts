/**
 * Reading a plain HTML form post's body (`application/x-www-form-urlencoded` or
 * `multipart/form-data`) for the form it targets; lib/submissions/form_post.ts sorts the
 * entries into the submit body.
 * @module
 */
import { decodeUtf8, MAX_BODY_BYTES, readBody } from "./body.ts";
import { readMultipart } from "./multipart.ts";
import { type Form, isFileType, type Workspace } from "@/lib/schemas.ts";
import { type FormPost, maxFileBytes, splitEntries } from "@/lib/submissions/form_post.ts";

/**
 * The hard cap of a multipart post's whole body (abuse): up to it a file over its
 * field's limit is read past and reported on its field; beyond it the post is a 413.
 * Larger files use the signed-URL flow (the hosted page's island does).
 */
export const MAX_MULTIPART_BYTES = 100 * 1024 * 1024;
/** Parts one multipart post may have. */
const MAX_PARTS = 1000;

/** The form post content types. */
export type FormPostType = "application/x-www-form-urlencoded" | "multipart/form-data";

/**
 * Reads and splits a form post; a body that cannot be read is a 400 or 413. Multipart
 * bodies are streamed: a file keeps its bytes only up to its field's limit (at most one
 * file per field is kept), so an oversized file is a 422 on its field, not a lost post.
 */
export async function readFormPost(
  req: Request,
  type: FormPostType,
  form: Form,
  workspace: Workspace,
): Promise<FormPost> {
  if (type === "application/x-www-form-urlencoded") {
    const entries: [string, string][] = [];
    const text = decodeUtf8(await readBody(req));
    for (const [k, v] of new URLSearchParams(text)) entries.push([k, v]);
    return splitEntries(entries, form, workspace);
  }
  const fields = new Map(form.fields.map((f) => [f.name, f]));
  const seen = new Set<string>();
  const entries = await readMultipart(req, {
    maxBodyBytes: MAX_MULTIPART_BYTES,
    maxTextBytes: MAX_BODY_BYTES,
    maxParts: MAX_PARTS,
    fileCap: (name) => {
      const field = fields.get(name);
      // A second file under one name is refused later: keep none of its bytes.
      if (!field || !isFileType(field.type) || seen.has(name)) return 0;
      seen.add(name);
      return maxFileBytes(field, workspace);
    },
  });
  return splitEntries(entries, form, workspace);
}
