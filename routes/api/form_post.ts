/**
 * The no-JS submit (`POST /api/v1/submit/p/:id` with a form body): the same submit()
 * as JSON (`source: "form"`), answered with a 303 to the success target, or on failure a
 * 303 to the error target with `?error=<code>`, or the hosted form page re-rendered with
 * the posted values, the field errors and the error's status.
 * @module
 */
import type { Context } from "hono";
import type { Deps } from "../../lib/deps.ts";
import { AppError, errors, type FieldError } from "../../lib/errors.ts";
import { type FormPost, readFormPost } from "../../lib/form_post.ts";
import type { AppEnv } from "../../lib/http.ts";
import type { IdempotencyRecord } from "../../lib/idempotency.ts";
import { keys } from "../../lib/kv_keys.ts";
import { withKvRetry } from "../../lib/kv.ts";
import { peekLimit, spendQuietly } from "../../lib/rate_limit.ts";
import { errorLocation, successLocation } from "../../lib/redirects.ts";
import type { Form, Workspace } from "../../lib/schemas.ts";
import { loadSubmitTarget, submit, type SubmitContext, submitSpend } from "../../lib/submit.ts";
import { acceptDirectUpload } from "../../lib/uploads.ts";
import { validateData } from "../../lib/validator.ts";
import type { HostedNotice } from "../../islands/hosted/types.ts";
import { newPageKey, renderFormPage } from "../f/[id].tsx";
import { errorPage, notFoundPage } from "../f/_message.tsx";

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

/** Stores the files (after the other fields validate), then submits; returns the id. */
async function store(
  deps: Deps,
  ctx: SubmitContext,
  target: { form: Form; workspace: Workspace },
  post: FormPost,
): Promise<string> {
  const { form } = target;
  const data: Record<string, unknown> = { ...post.data };
  if (post.files.length) {
    // Files cannot be compared with an earlier post's stored copies: a post reusing a
    // stored key is the same attempt (double click, Back and resend) and replays.
    if (ctx.idempotencyKey) {
      const rec = (await withKvRetry(() =>
        deps.kv.get<IdempotencyRecord>(
          keys.idempotency(form.id, ctx.auth?.mode ?? "live", ctx.idempotencyKey!),
        )
      )).value;
      if (rec && rec.expires_at > deps.now()) return rec.body.submission_id;
    }
    const spend = submitSpend(deps, ctx);
    if (!(await peekLimit(deps, spend))) throw errors.rateLimited();
    // Validate the rest first so a typo does not store files that are thrown away.
    const placeholders = Object.fromEntries(post.files.map((f) => [f.field.name, { path: "-" }]));
    const pre = validateData(form, { ...data, ...placeholders }, "form");
    if (pre.errors.length) {
      await spendQuietly(deps, spend);
      throw errors.validation(pre.errors);
    }
    const found: FieldError[] = [];
    for (const { field, file } of post.files) {
      try {
        const bytes = new Uint8Array(await file.arrayBuffer());
        data[field.name] = await acceptDirectUpload(deps, form, field, file.name, file.type, bytes);
      } catch (err) {
        const items = err instanceof AppError ? err.extra.errors : undefined;
        if (!Array.isArray(items)) throw err;
        found.push(...(items as FieldError[]));
      }
    }
    if (found.length) {
      await spendQuietly(deps, spend);
      throw errors.validation(found);
    }
  }
  const outcome = await submit(deps, ctx, {
    data,
    captcha_token: post.captchaToken,
    schema_version: post.schemaVersion,
    redirect: post.redirect,
  });
  return outcome.body.submission_id;
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
  return renderFormPage(deps, form, {
    values: post?.data ?? {},
    errors: items,
    notice: noticeFor(err, form, items),
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
