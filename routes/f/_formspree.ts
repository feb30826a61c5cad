/**
 * `POST /f/<public_id>`: Formspree's endpoint, so Formspree's own clients work unchanged.
 * It takes urlencoded, multipart, or JSON with the fields at the top level, through the one
 * submit pipeline as a form post. A client asking for JSON (`Accept: application/json`, or a
 * JSON body) gets `200 {ok, next}` or the refusal in Formspree's shape with its status;
 * any other post is answered as a no-JS post (a 303, or the HTML page with the errors).
 * @module
 */
import type { Context } from "hono";
import type { Deps } from "@/lib/deps.ts";
import { AppError, errors } from "@/lib/errors.ts";
import { isPlausibleId } from "@/lib/http/validation.ts";
import { prefersJson } from "@/lib/http/accept.ts";
import { mediaType, parseJsonObject, readBody } from "@/lib/http/body.ts";
import type { AppEnv } from "@/lib/http/http.ts";
import { flatJsonAsForm, formspreeEmpty, formspreeError } from "@/lib/http/formspree.ts";
import { successLocation } from "@/lib/http/redirects.ts";
import { answerFormPost } from "@/routes/api/_form_post.ts";
import { runSubmit } from "@/routes/api/_submit.ts";
import { notFoundPage } from "./_message.tsx";

/** Answers a post to Formspree's endpoint path. */
export async function formspreePost(deps: Deps, c: Context<AppEnv>): Promise<Response> {
  const raw = c.req.raw;
  const type = mediaType(raw.headers.get("content-type"));
  const wantsJson = type === "application/json" || prefersJson(raw.headers.get("accept"));
  const id = c.req.param("id") ?? "";
  if (!isPlausibleId(id)) {
    const body = formspreeError(errors.formNotFound(), null, new Set());
    return wantsJson ? c.json(body, 404) : notFoundPage();
  }
  try {
    // The pipeline sees a form post: its refusals come back with the form and what was
    // posted, from which Formspree's codes are told apart (EMPTY vs MISSING).
    let entries: [string, string][] | undefined;
    if (type === "application/json") {
      const form = flatJsonAsForm(parseJsonObject(await readBody(raw)));
      if (!form) return c.json(formspreeEmpty(), 422);
      entries = [...form];
    }
    const answer = await runSubmit(deps, c, id, { entries, negotiate: false });
    if (answer.kind === "json") return c.json(answer.outcome.body, 201);
    if (!wantsJson) return answerFormPost(deps, c, answer);
    if (answer.kind === "form_refused") {
      const posted = new Set(Object.keys(answer.post?.data ?? {}));
      const body = formspreeError(answer.error, answer.form, posted);
      return c.json(body, answer.error.status as 400);
    }
    const { form, post, outcome } = answer;
    const sid = outcome.body.submission_id;
    const next = successLocation(form, post.redirect ?? post.next, deps.config.baseUrl, sid);
    return c.json({ ok: true, next: new URL(next, deps.config.baseUrl).href }, 200);
  } catch (err) {
    if (!wantsJson || !(err instanceof AppError)) throw err;
    return c.json(formspreeError(err, null, new Set()), err.status as 400);
  }
}
