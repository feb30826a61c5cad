/**
 * The Formwell client for browsers (also Deno, Node and Bun): `new Formwell({baseUrl})`,
 * `submit`, `enhance`, the outbox that never loses a submission. Built into the module the
 * service serves at `/sdk/formwell.js`. Server-side data access: `./server.ts`.
 * @module
 */
export { Formwell } from "./src/client.ts";
export type { FormwellOptions, OutboxEvent, SubmitOptions } from "./src/client.ts";
export { FormwellError } from "./src/errors.ts";
export type { EnhanceOptions } from "./src/enhance.ts";
export type { DraftSaved, ResumedDraft, SaveDraftOptions } from "./src/drafts.ts";
export type { OutboxStore } from "./src/stores.ts";
export type { UploadProgress } from "./src/upload.ts";
export type { RetryPolicy, Runtime } from "./src/http.ts";
export type * from "./src/types.ts";
