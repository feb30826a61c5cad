/**
 * The submit pipeline, shared by the JSON and the plain-HTML paths, over input the route
 * parsed: stages read (read.ts) -> screen (screen.ts) -> store posted files (form_post.ts)
 * -> admit (admit.ts) -> write (the group commit). A refusal is thrown as an AppError; the
 * route decides how to answer it (JSON, a redirect or an HTML page) and counts it against
 * the submit's rate limit (routes/api/_submit.ts).
 * @module
 */
import { authenticateKey } from "@/lib/keys/auth.ts";
import type { Deps } from "@/lib/deps.ts";
import { parseIdempotencyKey, payloadHash } from "./idempotency.ts";
import { ipIdentity, type LimitSpend } from "@/lib/ratelimit/rate_limit.ts";
import type { AskedLanguage } from "@/lib/forms/validator.ts";
import type { Form } from "@/lib/schemas.ts";
import { type FormPost, postedPayload, postInput, storePostedFiles } from "./form_post.ts";
import type { SubmitBody, SubmitInput } from "./parse.ts";
import { readSubmitState, submitSpend, type SubmitTarget } from "./read.ts";
import { screen } from "./screen.ts";
import { admit } from "./admit.ts";
import type { SubmitContext, WriteOutcome } from "./types.ts";
import { inSpan } from "@/lib/observe/trace.ts";

/** Who submits, as the route read it from the request. */
export interface SubmitCaller {
  formId: string;
  /** The `Authorization` header, if any (an API key as a bearer token). */
  authorization: string | null;
  /** The client's address (as trusted from proxies by the route). */
  ip: string;
  origin: string | null;
  userAgent: string | null;
  /** The `Idempotency-Key` header, if any (checked after the key). */
  idempotencyKey: string | null;
  /** The languages the request asks for (of the 422 messages). */
  language: AskedLanguage;
  /** Called with the form once submit has read it live (CORS grants from that read). */
  onForm?: (form: Form) => void;
}

/**
 * The context of a submit: the caller's key authenticated (401 for a bad one; its
 * workspace is read and checked by the read stage, with the form), then its
 * Idempotency-Key checked (400).
 */
export async function submitContext(deps: Deps, caller: SubmitCaller): Promise<SubmitContext> {
  return {
    formId: caller.formId,
    auth: caller.authorization !== null
      ? await authenticateKey(deps, caller.authorization, { callerChecksWorkspace: true })
      : null,
    ip: caller.ip,
    identity: ipIdentity(caller.ip),
    origin: caller.origin,
    userAgent: caller.userAgent,
    idempotencyKey: parseIdempotencyKey(caller.idempotencyKey),
    source: "json",
    language: caller.language,
    onForm: caller.onForm,
  };
}

/**
 * What was submitted: a JSON body (validated by the route's schema), or a form post read
 * against the form it targets (read once, with the key's scope checked: read.ts
 * `loadSubmitTarget`).
 */
export type SubmitPayload =
  | { kind: "json"; body: SubmitBody }
  | { kind: "form"; target: SubmitTarget; post: FormPost };

/**
 * Runs one submit over parsed input and returns its outcome; a refusal throws. `spend` is
 * the submit's rate-limit spend (read.ts `submitSpend` of `ctx`). A form post's own values
 * (owner email, honeypot, idempotency key) join the context here, and its double posts
 * under one key run one after the other.
 */
export function submitRequest(
  deps: Deps,
  ctx: SubmitContext,
  payload: SubmitPayload,
  spend: LimitSpend = submitSpend(deps, ctx),
): Promise<WriteOutcome> {
  return inSpan("submit", async () => {
    if (payload.kind === "json") {
      return await submit(deps, ctx, { body: payload.body, files: [] }, spend);
    }
    const { target, post } = payload;
    const postCtx: SubmitContext = {
      ...ctx,
      source: "form",
      ownerMail: post.ownerMail,
      trapped: post.trapped,
      // The header wins over the page's hidden field.
      idempotencyKey: ctx.idempotencyKey ?? post.idempotencyKey,
      // Stored files get new paths every time: the key is compared on what was posted,
      // so an identical re-post replays and one with other answers is 409.
      payloadHash: post.files.length ? await payloadHash(postedPayload(post), {}) : undefined,
    };
    const run = () => submit(deps, postCtx, postInput(post), spend, target);
    const key = postCtx.idempotencyKey;
    return key
      ? await serialised(deps.inflight.posts, `${target.form.id}/${key}`, run)
      : await run();
  }, { "formwell.form_id": ctx.formId });
}

/**
 * Runs the pipeline's stages after parse; refusals throw. `spend` is the submit's
 * rate-limit spend (submitSpend of `ctx`); `target` is the form and workspace when the
 * route has read them already (a form post), so they are not read again.
 */
async function submit(
  deps: Deps,
  ctx: SubmitContext,
  input: SubmitInput,
  spend: LimitSpend,
  target?: SubmitTarget,
): Promise<WriteOutcome> {
  const state = await inSpan("submit.read", () => readSubmitState(deps, ctx, spend, target));
  const screened = await inSpan("submit.screen", () => screen(deps, ctx, input, state, spend));
  if (screened.replay) return { replayed: true, body: screened.replay };
  const body = input.files.length
    ? { ...input.body, data: await storePostedFiles(deps, state.form, input) }
    : input.body;
  const admitted = await inSpan(
    "submit.admit",
    () => admit(deps, ctx, body, state, screened, spend),
  );
  if ("replay" in admitted) return { replayed: true, body: admitted.replay };
  try {
    return await inSpan("submit.write", () => deps.writer.write(admitted.draft));
  } finally {
    admitted.release();
  }
}

/** Runs `run` after any run still in flight under `key` in `inflight` (a double post waits). */
async function serialised<T>(
  inflight: Map<string, Promise<unknown>>,
  key: string,
  run: () => Promise<T>,
): Promise<T> {
  const prior = inflight.get(key);
  if (prior) await prior.catch(() => {});
  const p = run();
  inflight.set(key, p);
  try {
    return await p;
  } finally {
    if (inflight.get(key) === p) inflight.delete(key);
  }
}
