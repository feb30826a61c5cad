/**
 * The answer to a no-JS submit (`POST /api/v1/submit/p/:id` with a form body), whose
 * pipeline is lib/submissions/submit.ts (run by ./_submit.ts): after a stored submission, a 303 to the success
 * target (`_redirect`, `_next`, `redirect.success`, the thank-you page). A refusal never
 * goes there: a 303 to the error target (`redirect.error`, `_redirect`) with
 * `?error=<code>`; else, for a post from the hosted page, that page re-rendered with the
 * posted values and the field errors; for any other page, an error page with the status,
 * the errors and a link back.
 * @module
 */
import type { Context } from "hono";
import type { Deps } from "@/lib/deps.ts";
import type { AppError, FieldError } from "@/lib/errors.ts";
import type { FormPost } from "@/lib/submissions/form_post.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import { errorLocation, successLocation, thanksPath, withParams } from "@/lib/http/redirects.ts";
import type { Form } from "@/lib/schemas.ts";
import type { HostedNotice } from "@/islands/hosted/types.ts";
import { uiText } from "@/lib/rules/mod.ts";
import {
  isHostedPageKey,
  newPageKey,
  pageLanguage,
  renderFormPage,
} from "@/routes/f/_form_page.tsx";
import { errorPage, notFoundPage, refusedPage } from "@/routes/f/_message.tsx";
import type { SubmitEnd } from "./_submit.ts";

/** Answers a form post's outcome: a redirect, or an HTML page (JSON for non-browsers). */
export function answerFormPost(
  deps: Deps,
  c: Context<AppEnv>,
  answer: Extract<SubmitEnd, { kind: "form" | "form_refused" }>,
): Response {
  if (answer.kind === "form") {
    const { form, post, outcome } = answer;
    const id = outcome.body.submission_id;
    const target = post.redirect ?? post.next;
    const to = successLocation(form, target, deps.config.baseUrl, id);
    // Our thank-you page speaks the language the hosted page was shown in.
    const lang = c.req.query("lang");
    const ours = to.startsWith(`${thanksPath(form.id)}?`);
    return c.redirect(ours && lang ? withParams(to, { lang: lang.slice(0, 35) }) : to, 303);
  }
  return failure(deps, c, answer.error, answer.form, answer.post, answer.headerKey);
}

/** The page's own words for refusals a visitor can act on, in the page's language. */
const NOTICES: Partial<Record<string, "form_changed" | "key_reused">> = {
  schema_changed: "form_changed",
  idempotency_key_reused: "key_reused",
};

function noticeText(code: string, lang: string): string | undefined {
  const id = NOTICES[code];
  return id && uiText(lang, id);
}

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
  // A post from our hosted page (its one-time key says so) is re-rendered with what the
  // visitor typed; the error redirect is for sites posting their own HTML form. `_next`
  // is a success target only: a refusal never goes there.
  const hosted = isHostedPageKey(post?.idempotencyKey);
  const location = hosted ? null : errorLocation(form, post?.redirect, deps.config.baseUrl, params);
  if (location) return c.redirect(location, 303);
  // A browser navigation asks for HTML; scripts and tools (curl) get the JSON error body.
  if (!/\btext\/html\b/i.test(c.req.header("accept") ?? "")) throw err;
  if (!form) return err.status === 404 ? notFoundPage() : errorPage(err.status, err.message);
  if (!hosted) {
    const message = noticeText(err.code, pageLanguage(form, c)) ?? err.message;
    return refusedPage(err.status, message, items.map((e) => e.message), backLink(c, form));
  }
  const lang = pageLanguage(form, c);
  const notice = noticeFor(err, form, items, lang);
  // A page cannot prefill file inputs: say so rather than let the files vanish silently.
  if (post?.files.length) {
    const again = uiText(lang, "files_again");
    notice.message = `${notice.message} ${again}`.trim();
    // A field summary is rebuilt from the fields in the browser: keep the sentence with it.
    if (notice.items) notice.extra = `${notice.extra ?? ""} ${again}`.trim();
  }
  return renderFormPage(deps, form, {
    values: post?.data ?? {},
    errors: items,
    notice,
    // A key whose result is stored with other answers is spent: the page gets a new one.
    idempotencyKey: err.code === "idempotency_key_reused"
      ? newPageKey()
      : headerKey ?? post?.idempotencyKey,
    redirect: post?.redirect,
    lang,
    draftId: post?.draftId,
  }, err.status);
}

/**
 * Where "Back to the form" leads from the error page: the posting page (`Referer`, else
 * `Origin`: browsers often send only the origin across sites), else the hosted form.
 */
function backLink(c: Context<AppEnv>, form: Form): string {
  for (const raw of [c.req.header("referer"), c.req.header("origin")]) {
    if (!raw || raw.length > 2000) continue;
    try {
      const url = new URL(raw);
      if (url.protocol === "https:" || url.protocol === "http:") return url.href;
    } catch {
      // Not a URL: try the next source.
    }
  }
  return `/f/${encodeURIComponent(form.id)}`;
}

function noticeFor(err: AppError, form: Form, items: FieldError[], lang: string): HostedNotice {
  if (err.code !== "validation_failed") {
    return { kind: "error", message: noticeText(err.code, lang) ?? err.message };
  }
  const names = new Set(form.fields.map((f) => f.name));
  const listed = items.filter((e) => names.has(e.field));
  const other = items.filter((e) => !names.has(e.field)).map((e) => e.message);
  const n = new Set(listed.map((e) => e.field)).size;
  const count = n === 1 ? uiText(lang, "correct_one") : uiText(lang, "correct_many", { n });
  const message = [count, ...other].join(" ");
  const seen = new Set<string>();
  return {
    kind: "error",
    message: n ? message : other.join(" "),
    ...(other.length ? { extra: other.join(" ") } : {}),
    items: listed.filter((e) => !seen.has(e.field) && seen.add(e.field)).map((e) => ({
      field: e.field,
      message: e.message,
    })),
  };
}
