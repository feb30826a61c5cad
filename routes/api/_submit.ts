/**
 * The submit routes' HTTP half (`POST /api/v1/submit/p/:id` and Formspree's `POST /f/:id`):
 * who the caller is, the content type, the body read and validated against the route's
 * schema, and every refusal counted against the caller's rate limit, here and nowhere
 * else: the client IP's until the pipeline starts, then the submit's own budget (the
 * key's workspace, or the IP). The pipeline itself is lib/submissions/submit.ts.
 * @module
 */
import type { Context } from "hono";
import type { z } from "zod";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { prefersJson } from "@/lib/http/accept.ts";
import { isPlainObject, mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import { type FormPostType, readFormPost } from "@/lib/http/form_post.ts";
import { type AppEnv, clientIp } from "@/lib/http/http.ts";
import { validationError } from "@/lib/http/validation.ts";
import { askedLanguage } from "@/lib/forms/validator.ts";
import { countingRefusals, ipIdentity, type LimitSpend } from "@/lib/ratelimit/rate_limit.ts";
import type { Form } from "@/lib/schemas.ts";
import { type FormPost, splitEntries } from "@/lib/submissions/form_post.ts";
import type { SubmitBody } from "@/lib/submissions/parse.ts";
import { loadSubmitTarget, submitSpend } from "@/lib/submissions/read.ts";
import { submitContext, submitRequest } from "@/lib/submissions/submit.ts";
import type { WriteOutcome } from "@/lib/submissions/types.ts";

/** The content types a submit takes. */
const SUBMIT_TYPES = [
  "application/json",
  "application/x-www-form-urlencoded",
  "multipart/form-data",
] as const;

/**
 * How a submit ended, for its route to answer. A JSON submit's refusal is thrown (an
 * AppError); a form post's is returned with what was read, for the route to redirect or
 * render the page again. A form post whose `Accept` prefers JSON and that names no
 * `_redirect` (an AJAX post) ends like a JSON submit: `json`, or its refusal thrown.
 */
export type SubmitEnd =
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
type Refused = Omit<Extract<SubmitEnd, { kind: "form_refused" }>, "kind" | "error">;

/** How a route reads its submit: its JSON body's schema, or its own form post reader. */
export interface SubmitReading {
  /** The schema of a JSON body (the route's declared one); without it JSON is a 415. */
  json?: z.ZodType<SubmitBody>;
  /**
   * The post's entries when the route has them already (Formspree's JSON, its fields at the
   * top level); otherwise the request's urlencoded or multipart body is read.
   */
  entries?: [string, string][];
  /** Whether the client may get a form post's answer as JSON (`Accept`); default true. */
  negotiate?: boolean;
}

/** Runs one submit request: its caller, body and pipeline, with every refusal counted. */
export async function runSubmit(
  deps: Deps,
  c: Context<AppEnv>,
  formId: string,
  reading: SubmitReading,
): Promise<SubmitEnd> {
  const ip = clientIp(c, deps.config.trustProxy);
  const identity = ipIdentity(ip);
  // The budget a refusal spends: the client IP's until the pipeline knows the submit's own.
  let spend: LimitSpend | null = null;
  let posted: Refused | null = null;
  let ajax = false;
  try {
    const current = () => spend ?? submitSpend(deps, { auth: null, identity });
    return await countingRefusals(deps, current, async () => {
      const ctx = await submitContext(deps, {
        formId,
        authorization: c.req.header("authorization") ?? null,
        ip,
        origin: c.req.header("origin") ?? null,
        userAgent: c.req.header("user-agent") ?? null,
        idempotencyKey: c.req.header("idempotency-key") ?? null,
        language: askedLanguage(c.req.raw),
        onForm: (form) => c.set("submitForm", form),
      });
      // The submit's own budget, computed once: refusals spend it from where it applies on.
      const own = submitSpend(deps, ctx);
      const type = mediaType(c.req.header("content-type"));
      if (type === "application/json" && reading.json) {
        const body = jsonSubmitBody(parseJsonObject(await readBody(c.req.raw)), reading.json);
        spend = own;
        return {
          kind: "json",
          outcome: await submitRequest(deps, ctx, { kind: "json", body }, own),
        };
      }
      const posts = type === "application/x-www-form-urlencoded" || type === "multipart/form-data";
      if (!reading.entries && !posts) {
        throw errors.unsupportedMediaType([...SUBMIT_TYPES]);
      }
      // An AJAX post's refusals are thrown as the JSON path's are (the catch below).
      ajax = (reading.negotiate ?? true) && prefersJson(c.req.header("accept"));
      posted = { form: null, post: null, headerKey: ctx.idempotencyKey };
      const target = await loadSubmitTarget(deps, ctx);
      posted.form = target.form;
      const post = posted.post = reading.entries
        ? splitEntries(reading.entries, target.form, target.workspace)
        : await readFormPost(c.req.raw, type as FormPostType, target.form, target.workspace);
      ajax &&= post.redirect === undefined;
      spend = own;
      const outcome = await submitRequest(deps, ctx, { kind: "form", target, post }, own);
      return ajax ? { kind: "json", outcome } : { kind: "form", outcome, form: target.form, post };
    });
  } catch (err) {
    const refused = posted as Refused | null;
    if (!refused || ajax || !(err instanceof AppError)) throw err;
    return { kind: "form_refused", error: err, ...refused };
  }
}

/**
 * A JSON submit body validated by the route's schema. A missing or non-object `data` is a
 * 400 naming it (the most common mistake: fields at the top level, as Formspree's clients
 * send them); any other problem is the one validation formatter's 400.
 */
function jsonSubmitBody(
  raw: Record<string, unknown>,
  schema: z.ZodType<SubmitBody>,
): SubmitBody {
  if (!("data" in raw)) {
    throw errors.badRequest(
      "Missing 'data': send the field values as a JSON object in 'data' " +
        '({"data": {...}}). Fields at the top level, as Formspree\'s clients send them, ' +
        "go to the Formspree-compatible endpoint POST /f/<form id>.",
    );
  }
  if (!isPlainObject(raw.data)) {
    throw errors.badRequest("'data' must be a JSON object of field values.");
  }
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw validationError(parsed.error, "json");
  return parsed.data;
}
