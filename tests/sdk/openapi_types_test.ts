/**
 * The client library's request and response types agree with the OpenAPI document: the
 * zod schemas the document is generated from (lib/api/schemas.ts and the request schemas the
 * routes validate with) are compared with sdk/src/types.ts by the type checker. What the
 * service documents as an answer must be assignable to what the client declares it reads,
 * and what the client sends must be accepted by the documented request schema. A change on
 * either side that breaks this fails `deno test` at type-checking. The runtime half is
 * tests/sdk/app_fetch.ts: every answer the client gets in the SDK tests is checked against
 * the documented schema for its status.
 */
import assert from "node:assert/strict";
import type { z } from "zod";
import type * as api from "@/lib/api/schemas.ts";
import type { submitBodySchema } from "@/lib/submissions/parse.ts";
import type { uploadUrlBodySchema } from "@/lib/uploads/grants.ts";
import type { deleteBodySchema } from "@/lib/submissions/delete.ts";
import type { webhookCreateSchema, webhookUpdateSchema } from "@/lib/notify/webhook_edits.ts";
import type { eraseBodySchema } from "@/lib/privacy/erase.ts";
import type { formListQuerySchema } from "@/lib/forms/query.ts";
import type { submissionListQuerySchema } from "@/lib/submissions/query.ts";
import type { auditQuerySchema } from "@/lib/privacy/audit.ts";
import type * as sdk from "@/sdk/src/types.ts";

/** Compiles only when `A` is assignable to `B`. */
type Assignable<A, B> = [A] extends [B] ? true : false;
/** A documented answer, as the client receives it. */
type Out<S extends z.ZodType> = z.output<S>;
/** What a documented request schema accepts. */
type In<S extends z.ZodType> = z.input<S>;

/**
 * A file whose reference left its submission's fields is listed by `path` only, so the
 * document keeps `field` and the reference optional; the client declares them present.
 * Compared without `files`, and the files by `path`.
 */
type WithoutFiles<T> = Omit<T, "files">;

const answers = {
  error: true as Assignable<Out<typeof api.errorBody>, sdk.ErrorBody>,
  schema: true as Assignable<Out<typeof api.publicSchemaBody>, sdk.PublicSchema>,
  submit: true as Assignable<Out<typeof api.submitResultSchema>, sdk.SubmitResult>,
  upload: true as Assignable<Out<typeof api.uploadGrantSchema>, sdk.UploadGrant>,
  pagination: true as Assignable<Out<typeof api.paginationSchema>, sdk.Pagination>,
  form: true as Assignable<Out<typeof api.formSchema>, sdk.Form>,
  submission: true as Assignable<
    WithoutFiles<Out<typeof api.submissionSchema>>,
    WithoutFiles<sdk.Submission>
  >,
  filePath: true as Assignable<
    NonNullable<Out<typeof api.submissionSchema>["files"]>[number]["path"],
    sdk.SubmissionFile["path"]
  >,
  analytics: true as Assignable<Out<typeof api.analyticsSchema>, sdk.Analytics>,
  webhook: true as Assignable<Out<typeof api.webhookSchema>, sdk.Webhook>,
  webhookSecret: true as Assignable<
    Out<typeof api.webhookWithSecretSchema>,
    sdk.WebhookWithSecret
  >,
  delivery: true as Assignable<Out<typeof api.deliverySchema>, sdk.WebhookDelivery>,
  job: true as Assignable<Out<typeof api.privacyJobSchema>, sdk.PrivacyJob>,
  audit: true as Assignable<Out<typeof api.auditEventSchema>, sdk.AuditEvent>,
} satisfies Record<string, true>;

const requests = {
  submit: true as Assignable<sdk.SubmitBody, In<typeof submitBodySchema>>,
  upload: true as Assignable<sdk.UploadUrlBody, In<typeof uploadUrlBodySchema>>,
  delete: true as Assignable<{ ids: string[] }, In<typeof deleteBodySchema>>,
  webhookCreate: true as Assignable<
    Pick<sdk.WebhookCreate, "url" | "events" | "forms">,
    In<typeof webhookCreateSchema>
  >,
  webhookUpdate: true as Assignable<
    Pick<sdk.WebhookUpdate, "url" | "events" | "forms" | "enabled">,
    In<typeof webhookUpdateSchema>
  >,
  erase: true as Assignable<{ email: string }, In<typeof eraseBodySchema>>,
  formsQuery: true as Assignable<sdk.FormListQuery, In<typeof formListQuerySchema>>,
  submissionsQuery: true as Assignable<
    sdk.SubmissionListQuery,
    In<typeof submissionListQuerySchema>
  >,
  // The client takes any `action` string; the service documents (and checks) the list.
  auditQuery: true as Assignable<
    Omit<sdk.AuditQuery, "action">,
    Omit<In<typeof auditQuerySchema>, "action">
  >,
} satisfies Record<string, true>;

Deno.test("sdk types - agree with the OpenAPI schemas (checked by the type checker)", () => {
  // The values are `true` only because the conditional types above resolved to `true`.
  assert.ok(Object.values(answers).every(Boolean));
  assert.ok(Object.values(requests).every(Boolean));
});
