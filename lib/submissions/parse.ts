/**
 * A submit's body: its schema (the submit route's, which validates JSON bodies with it) and
 * the stored-size limit. A form post is sorted by form_post.ts into the same body plus its
 * files.
 * @module
 */
import { z } from "@hono/zod-openapi";
import { isPlainObject, MAX_STORED_BYTES, storedSize } from "@/lib/http/body.ts";
import { errors } from "@/lib/errors.ts";
import type { PostedFile } from "./types.ts";

/** The body of a submit, whichever content type carried it. */
export const submitBodySchema = z.object({
  // The parsed object itself, not a copy: a copy would drop a `__proto__` key, which must
  // stay to be refused as an unknown field.
  data: z.custom<Record<string, unknown>>(isPlainObject, {
    error: "must be a JSON object of field values",
  }).openapi({ type: "object", additionalProperties: true, description: "Values by field name." }),
  captcha_token: z.string().max(10_000).optional(),
  metadata: z.record(z.string(), z.unknown()).optional(),
  schema_version: z.number().int().positive().optional(),
  /** When the client rendered the form (epoch ms), for the time-to-submit signal. */
  rendered_at: z.number().int().positive().optional(),
  redirect: z.string().max(2000).optional(),
  /** The visitor's draft of this submission (lib/drafts): removed when it is stored. */
  draft_id: z.string().max(100).optional(),
}).strict();
/** A parsed submit body. */
export type SubmitBody = z.infer<typeof submitBodySchema>;

/** What a submit carries: the body and, from a multipart post, the files to store. */
export interface SubmitInput {
  body: SubmitBody;
  files: PostedFile[];
}

/** The stored size of a submission's values and metadata; over the limit is 413. */
export function checkStoredSize(values: unknown, metadata: unknown): number {
  const size = storedSize({ values, metadata });
  if (size > MAX_STORED_BYTES) {
    throw errors.payloadTooLarge(
      `The submission's data and metadata exceed ${MAX_STORED_BYTES / 1024} KiB.`,
    );
  }
  return size;
}
