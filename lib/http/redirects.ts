/**
 * Where a plain HTML form post goes next (CONTRACT "No-JS submit"): a request's
 * `_redirect` is followed only when it is same-origin with `BASE_URL` or its origin is in
 * the form's `allowed_origins`; the form's own `redirect.success`/`redirect.error` are set
 * by its owner and trusted; otherwise the hosted thank-you page or error page is used.
 * @module
 */
import type { Form } from "@/lib/schemas.ts";

/** Parses a requested redirect; returns the absolute URL when it may be followed, else null. */
export function allowedRedirect(
  requested: string | undefined,
  form: Pick<Form, "allowed_origins">,
  baseUrl: string,
): URL | null {
  if (requested === undefined || requested.trim() === "" || requested.length > 2000) return null;
  let url: URL;
  try {
    // Relative targets resolve against BASE_URL, so "/thanks" is same-origin and
    // "//evil.example" or "/\evil.example" resolve to another origin and are refused below.
    url = new URL(requested.trim(), `${baseUrl}/`);
  } catch {
    return null;
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") return null;
  if (url.username || url.password) return null;
  const own = new URL(baseUrl).origin;
  if (url.origin === own || form.allowed_origins.includes(url.origin)) return url;
  return null;
}

/** The hosted thank-you page of a form (relative: it works behind any host name). */
export function thanksPath(formId: string): string {
  return `/f/${encodeURIComponent(formId)}/thanks`;
}

/** Appends query parameters to a URL, keeping its own query and fragment. */
export function withParams(target: string | URL, params: Record<string, string>): string {
  const relative = typeof target === "string" && target.startsWith("/");
  const url = new URL(target, "http://relative.invalid");
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  return relative ? `${url.pathname}${url.search}${url.hash}` : url.toString();
}

/** The 303 target after a stored submission: `_redirect`, then `redirect.success`, then ours. */
export function successLocation(
  form: Pick<Form, "id" | "redirect" | "allowed_origins">,
  requested: string | undefined,
  baseUrl: string,
  submissionId: string,
): string {
  const target = allowedRedirect(requested, form, baseUrl) ?? form.redirect.success ??
    thanksPath(form.id);
  return withParams(target, { submission_id: submissionId });
}

/**
 * The 303 target after a refused submission, or null when the hosted error page should
 * answer instead: the form's `redirect.error`, then an allowed `_redirect`.
 */
export function errorLocation(
  form: Pick<Form, "redirect" | "allowed_origins"> | null,
  requested: string | undefined,
  baseUrl: string,
  params: Record<string, string>,
): string | null {
  const target = form?.redirect.error ??
    (form ? allowedRedirect(requested, form, baseUrl) : null);
  return target ? withParams(target, params) : null;
}
