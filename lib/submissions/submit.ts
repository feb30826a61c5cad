/**
 * The submit pipeline, shared by the JSON and the plain-HTML paths. Its stages, in SPEC
 * part 4's order: parse (parse.ts, form_post.ts) -> read (read.ts) -> screen (screen.ts)
 * -> store posted files (form_post.ts) -> admit (admit.ts) -> write (the group commit).
 * Routes only answer the outcome: JSON, a redirect or an HTML page.
 * @module
 */
import { authenticateKey } from "@/lib/keys/auth.ts";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { parseIdempotencyKey, payloadHash } from "./idempotency.ts";
import { countingRefusals, ipIdentity, type LimitSpend } from "@/lib/ratelimit/rate_limit.ts";
import type { Form } from "@/lib/schemas.ts";
import { prefersJson } from "@/lib/http/accept.ts";
import {
  type FormPost,
  postedPayload,
  postInput,
  readFormPost,
  storePostedFiles,
} from "./form_post.ts";
import { parseSubmitBody, type SubmitInput } from "./parse.ts";
import { loadSubmitTarget, readSubmitState, submitSpend } from "./read.ts";
import { screen } from "./screen.ts";
import { admit } from "./admit.ts";
import type { SubmitContext, WriteOutcome } from "./types.ts";
import { inSpan } from "@/lib/observe/trace.ts";
import { askedLanguage } from "@/lib/forms/validator.ts";

/** A submit request as the route received it. */
export interface SubmitRequest {
  formId: string;
  request: Request;
  /** The client's address (as trusted from proxies by the route). */
  ip: string;
  /** Called with the form once submit has read it live (CORS grants from that read). */
  onForm?: (form: Form) => void;
}

/**
 * How a submit ended. A JSON submit's refusal is thrown (an AppError); a form post's is
 * returned with what was read, for the route to redirect or render the page again. A form
 * post whose `Accept` prefers JSON and that names no `_redirect` (an AJAX post) is
 * answered like a JSON submit: `json`, or its refusal thrown.
 */
export type SubmitAnswer =
  | { kind: "json"; outcome: WriteOutcome }
  | { kind: "form"; outcome: WriteOutcome; form: Form; post: FormPost }
  | {
    kind: "form_refused";
    error: AppError;
    form: Form | null;
    post: FormPost | null;
    /** The request's Idempotency-Key header, when it had a valid one. */
    headerKey?: string;
  };

/** What a refused form post had read when it was refused. */
type Refused = Omit<Extract<SubmitAnswer, { kind: "form_refused" }>, "kind" | "error">;

/** The content types a submit takes. */
const SUBMIT_TYPES = [
  "application/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
] as const;

/**
 * Answers one submit request. Every refusal (an AppError other than 429) spends one unit
 * of the caller's rate limit, here and nowhere else: the client IP's until the pipeline
 * starts, then the submit's own budget (the key's workspace, or the IP).
 */
export function submitRequest(deps: Deps, req: SubmitRequest): Promise<SubmitAnswer> {
  return inSpan("submit", () => submitStages(deps, req), { "formwell.form_id": req.formId });
}

async function submitStages(deps: Deps, req: SubmitRequest): Promise<SubmitAnswer> {
  const identity = ipIdentity(req.ip);
  // The budget a refusal spends: the client IP's until the pipeline knows the submit's own.
  let spend: LimitSpend | null = null;
  let posted: Refused | null = null;
  let ajax = false;
  try {
    const current = () => spend ?? submitSpend(deps, { auth: null, identity });
    return await countingRefusals(deps, current, async () => {
      const headers = req.request.headers;
      const authorization = headers.get("authorization");
      const ctx: SubmitContext = {
        formId: req.formId,
        // The read stage reads the key's workspace along with the form, and checks it.
        auth: authorization !== null
          ? await authenticateKey(deps, authorization, { callerChecksWorkspace: true })
          : null,
        ip: req.ip,
        identity,
        origin: headers.get("origin"),
        userAgent: headers.get("user-agent"),
        idempotencyKey: parseIdempotencyKey(headers.get("idempotency-key")),
        source: "json",
        language: askedLanguage(req.request),
        onForm: req.onForm,
      };
      // The submit's own budget, computed once: refusals spend it from where it applies on.
      const own = submitSpend(deps, ctx);
      const type = mediaType(headers.get("content-type"));
      if (type === "application/json") {
        const body = parseSubmitBody(parseJsonObject(await readBody(req.request)));
        spend = own;
        return { kind: "json", outcome: await submit(deps, ctx, { body, files: [] }, own) };
      }
      if (type !== "application/x-www-form-urlencoded" && type !== "multipart/form-data") {
        throw errors.unsupportedMediaType([...SUBMIT_TYPES]);
      }
      // An AJAX post's refusals are thrown as the JSON path's are (the catch below).
      ajax = prefersJson(headers.get("accept"));
      posted = { form: null, post: null, headerKey: ctx.idempotencyKey };
      const { form, workspace } = await loadSubmitTarget(deps, ctx);
      posted.form = form;
      const post = posted.post = await readFormPost(req.request, type, form, workspace);
      ajax &&= post.redirect === undefined;
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
      spend = own;
      const run = () => submit(deps, postCtx, postInput(post), own);
      const key = postCtx.idempotencyKey;
      const outcome = key
        ? await serialised(deps.inflight.posts, `${form.id}/${key}`, run)
        : await run();
      return ajax ? { kind: "json", outcome } : { kind: "form", outcome, form, post };
    });
  } catch (err) {
    const refused = posted as Refused | null;
    if (!refused || ajax || !(err instanceof AppError)) throw err;
    return { kind: "form_refused", error: err, ...refused };
  }
}

/**
 * Runs the pipeline's stages after parse; refusals throw, and are counted by the caller.
 * `spend` is the submit's rate-limit spend (submitSpend of `ctx`).
 */
export async function submit(
  deps: Deps,
  ctx: SubmitContext,
  input: SubmitInput,
  spend: LimitSpend = submitSpend(deps, ctx),
): Promise<WriteOutcome> {
  const state = await inSpan("submit.read", () => readSubmitState(deps, ctx, spend));
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
