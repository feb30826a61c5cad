/**
 * The Formwell client for servers (Deno, Node, Bun): everything of the browser client
 * (submit with the key, which skips the CAPTCHA gate) plus the Server Data API with a
 * secret key, list iterators, file downloads, webhook management, the event feed and
 * `verifyWebhook`.
 * Touches no DOM global, at import or after.
 * @module
 */
import { Formwell as Client, type FormwellOptions } from "./src/client.ts";
import type { FormwellError } from "./src/errors.ts";
import { type Call, isTransient, RETRY, send, withRetry } from "./src/http.ts";
import {
  auditApi,
  type Caller,
  filesApi,
  formsApi,
  privacyApi,
  submissionsApi,
} from "./src/server/resources.ts";
import { webhooksApi } from "./src/server/webhooks.ts";
import { feedApi } from "./src/server/feed.ts";

// A bundle of its own: one FormwellError class for everything server.js throws.
export { FormwellError } from "./src/errors.ts";
export type { FormwellOptions, SubmitOptions } from "./src/client.ts";
export { verifyWebhook } from "./src/server/verify.ts";
export type { VerifyOptions } from "./src/server/verify.ts";
export type { QueuedEvent } from "./src/server/webhooks.ts";
export type * from "./src/types.ts";
export { deploy, DeployStepFailed, RemovalRefused } from "./src/deploy/run.ts";
export type { DeployClient, DeployOptions, DeployResult } from "./src/deploy/run.ts";
export type { DeployPlan, FileForm, FormwellFile, Removal } from "./src/deploy/plan.ts";

const IDEMPOTENT = ["GET", "PUT", "PATCH", "DELETE"];

/** Retries a POST only when it was refused before doing anything (a rate limit). */
function refusedUnread(err: unknown): boolean {
  const e = err as FormwellError;
  return e?.status === 429 && e.code !== "quota_exceeded";
}

/** The server-side client: `new Formwell({ apiKey, baseUrl })`. */
export class Formwell extends Client {
  /** Forms of the key's workspace, and their analytics. */
  readonly forms: ReturnType<typeof formsApi>;
  /** Submissions of a form (the key's mode: live or test). */
  readonly submissions: ReturnType<typeof submissionsApi>;
  /** Signed download links of attached files. */
  readonly files: ReturnType<typeof filesApi>;
  /** Webhook endpoints (`admin` scope). */
  readonly webhooks: ReturnType<typeof webhooksApi>;
  /** Erase and export by email. */
  readonly privacy: ReturnType<typeof privacyApi>;
  /** The audit log (`admin` scope, live keys). */
  readonly audit: ReturnType<typeof auditApi>;
  /** The event feed: `page`, `pages` (store each page's `next_cursor`) and `list`. */
  readonly events: ReturnType<typeof feedApi>;

  constructor(opts: FormwellOptions & { apiKey: string; baseUrl: string }) {
    super({ outbox: false, ...opts });
    const policy = { ...RETRY, ...opts.retry };
    const call: Caller = <T>(c: Call) =>
      withRetry(
        this.ep.rt,
        policy,
        () => send<T>(this.ep, c),
        c.signal,
        IDEMPOTENT.includes(c.method ?? "GET") ? isTransient : refusedUnread,
      );
    this.forms = formsApi(call);
    this.submissions = submissionsApi(call);
    this.files = filesApi(call, this.ep.rt);
    this.webhooks = webhooksApi(call);
    this.privacy = privacyApi(call);
    this.audit = auditApi(call);
    this.events = feedApi(call);
  }
}

/** The same server-side client under the name the docs of the npm package use. */
export { Formwell as FormwellServer };
