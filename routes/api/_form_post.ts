/**
 * The no-JS submit (`POST /api/v1/submit/p/:id` with a form body): the same submit()
 * as JSON (`source: "form"`), answered with a 303 to the success target, or on failure a
 * 303 to the error target with `?error=<code>`, or the hosted form page re-rendered with
 * the posted values, the field errors and the error's status.
 * @module
 */
import type { Context } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors, type FieldError } from "@/lib/errors.ts";
import { captchaRequired } from "@/lib/protection/captcha.ts";
import {
  type FormPost,
  oversizeErrors,
  postedPayload,
  readFormPost,
} from "@/lib/submissions/form_post.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import { findReplay, payloadHash } from "@/lib/submissions/idempotency.ts";
import { checkOrigin, screenSubmit } from "@/lib/protection/gates.ts";
import { type LimitSpend, peekLimit, spendQuietly } from "@/lib/ratelimit/rate_limit.ts";
import { errorLocation, successLocation } from "@/lib/submissions/redirects.ts";
import type { Form, Workspace } from "@/lib/schemas.ts";
import {
  loadSubmitTarget,
  submit,
  type SubmitContext,
  submitSpend,
} from "@/lib/submissions/submit.ts";
import { acceptDirectUpload } from "@/lib/uploads/direct.ts";
import { validateData } from "@/lib/forms/validator.ts";
import type { HostedNotice } from "@/islands/hosted/types.ts";
import { newPageKey, renderFormPage } from "@/routes/f/_form_page.tsx";
import { errorPage, notFoundPage } from "@/routes/f/_message.tsx";

/** Form-post media types. */
export type FormMediaType = "application/x-www-form-urlencoded" | "multipart/form-data";

/** Posts still running per form and idempotency key, so a double post waits for the first. */
const inflight = new Map<string, Promise<unknown>>();

/** Handles a form post; every AppError becomes a redirect or an HTML page. */
export async function handleFormPost(
  deps: Deps,
  c: Context<AppEnv>,
  ctx: SubmitContext,
  type: FormMediaType,
): Promise<Response> {
  let target: { form: Form; workspace: Workspace } | null = null;
  let post: FormPost | null = null;
  try {
    target = await loadSubmitTarget(deps, ctx);
    post = await readFormPost(c.req.raw, type, target.form, target.workspace);
    const idempotencyKey = ctx.idempotencyKey ?? post.idempotencyKey;
    const run = () => store(deps, { ...ctx, idempotencyKey, source: "form" }, target!, post!);
    const id =
      await (idempotencyKey ? serialised(`${target.form.id}/${idempotencyKey}`, run) : run());
    return c.redirect(successLocation(target.form, post.redirect, deps.config.baseUrl, id), 303);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return failure(deps, c, err, target?.form ?? null, post, ctx.idempotencyKey);
  }
}

async function serialised<T>(key: string, run: () => Promise<T>): Promise<T> {
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

/** Stores the files (after every check that needs no file), then submits; returns the id. */
async function store(
  deps: Deps,
  ctx: SubmitContext,
  target: { form: Form; workspace: Workspace },
  post: FormPost,
): Promise<string> {
  const body = {
    data: post.data as Record<string, unknown>,
    captcha_token: post.captchaToken,
    schema_version: post.schemaVersion,
    redirect: post.redirect,
  };
  if (!post.files.length) return (await submit(deps, ctx, body)).body.submission_id;
  // Stored files get new paths every time: the key is compared on what was posted, so
  // an identical re-post replays and one with other answers is 409.
  const fileCtx: SubmitContext = {
    ...ctx,
    payloadHash: await payloadHash(postedPayload(post), {}),
  };
  const spend = submitSpend(deps, ctx);
  let data: Record<string, unknown>;
  try {
    const replay = await preflight(deps, fileCtx, target.form, post, spend);
    if (replay) return replay;
    data = await storeFiles(deps, target.form, post);
  } catch (err) {
    // As submit() does: a refused attempt counts against the limit (a 429 already did).
    if (err instanceof AppError && err.status !== 429) await spendQuietly(deps, spend);
    throw err;
  }
  return (await submit(deps, fileCtx, { ...body, data })).body.submission_id;
}

/**
 * submit()'s checks that can refuse a post before any file is written (so a refused post
 * stores nothing): rate limit, origin, idempotency, closed form, stale schema, honeypot
 * and repeat offender, a missing CAPTCHA token, the other fields and the files' sizes.
 * Returns the original submission's id when the key replays.
 */
async function preflight(
  deps: Deps,
  ctx: SubmitContext,
  form: Form,
  post: FormPost,
  spend: LimitSpend,
): Promise<string | null> {
  if (!(await peekLimit(deps, spend))) throw errors.rateLimited();
  checkOrigin(deps, form, ctx);
  if (ctx.idempotencyKey) {
    const mode = ctx.auth?.mode ?? "live";
    const replay = await findReplay(deps, form.id, mode, ctx.idempotencyKey, ctx.payloadHash!);
    if (replay) return replay.submission_id;
  }
  if (!form.accepting) throw errors.formClosed();
  if (post.schemaVersion !== undefined && post.schemaVersion !== form.schema_version) {
    throw errors.schemaChanged(form.schema_version);
  }
  await screenSubmit(deps, ctx, form, post.data);
  if (!ctx.auth && captchaRequired(form) && !post.captchaToken) throw errors.captchaRequired();
  const placeholders = Object.fromEntries(post.files.map((f) => [f.field.name, { path: "-" }]));
  const pre = validateData(form, { ...post.data, ...placeholders }, "form");
  const found = [...pre.errors, ...oversizeErrors(post.files)];
  if (found.length) throw errors.validation(found);
  return null;
}

/** Writes and verifies each file; the data with their references, or one 422 for all. */
async function storeFiles(
  deps: Deps,
  form: Form,
  post: FormPost,
): Promise<Record<string, unknown>> {
  const data: Record<string, unknown> = { ...post.data };
  const found: FieldError[] = [];
  for (const { field, file } of post.files) {
    try {
      data[field.name] = await acceptDirectUpload(
        deps,
        form,
        field,
        file.name,
        file.type,
        file.bytes!,
      );
    } catch (err) {
      const items = err instanceof AppError ? err.extra.errors : undefined;
      if (!Array.isArray(items)) throw err;
      found.push(...(items as FieldError[]));
    }
  }
  if (found.length) throw errors.validation(found);
  return data;
}

const NOTICES: Partial<Record<string, string>> = {
  schema_changed: "This form changed since you opened it. Check your answers and send it again.",
  idempotency_key_reused:
    "This page already sent a response with different answers. Send again to submit these answers as a new response.",
};

/** The answer to a refused post: the error redirect, or the form page re-rendered. */
function failure(
  deps: Deps,
  c: Context<AppEnv>,
  err: AppError,
  form: Form | null,
  post: FormPost | null,
  headerKey: string | undefined,
): Response {
  const items = Array.isArray(err.extra.errors) ? err.extra.errors as FieldError[] : [];
  const params: Record<string, string> = { error: err.code };
  const named = [...new Set(items.map((e) => e.field).filter(Boolean))];
  if (named.length) params.fields = named.join(",").slice(0, 500);
  const location = errorLocation(form, post?.redirect, deps.config.baseUrl, params);
  if (location) return c.redirect(location, 303);
  // A browser navigation asks for HTML; scripts and tools (curl) get the JSON error body.
  if (!/\btext\/html\b/i.test(c.req.header("accept") ?? "")) throw err;
  if (!form) return err.status === 404 ? notFoundPage() : errorPage(err.status, err.message);
  const notice = noticeFor(err, form, items);
  // A page cannot prefill file inputs: say so rather than let the files vanish silently.
  if (post?.files.length) notice.message = `${notice.message} Choose your files again.`.trim();
  return renderFormPage(deps, form, {
    values: post?.data ?? {},
    errors: items,
    notice,
    // A key whose result is stored with other answers is spent: the page gets a new one.
    idempotencyKey: err.code === "idempotency_key_reused"
      ? newPageKey()
      : headerKey ?? post?.idempotencyKey,
    redirect: post?.redirect,
  }, err.status);
}

function noticeFor(err: AppError, form: Form, items: FieldError[]): HostedNotice {
  if (err.code !== "validation_failed") {
    return { kind: "error", message: NOTICES[err.code] ?? err.message };
  }
  const names = new Set(form.fields.map((f) => f.name));
  const listed = items.filter((e) => names.has(e.field));
  const other = items.filter((e) => !names.has(e.field)).map((e) => e.message);
  const n = new Set(listed.map((e) => e.field)).size;
  const message = [n === 1 ? "Please correct 1 field." : `Please correct ${n} fields.`, ...other]
    .join(" ");
  const seen = new Set<string>();
  return {
    kind: "error",
    message: n ? message : other.join(" "),
    items: listed.filter((e) => !seen.has(e.field) && seen.add(e.field)).map((e) => ({
      field: e.field,
      message: e.message,
    })),
  };
}
