/**
 * Akismet, an optional second opinion (on when `AKISMET_KEY` is set): its documented REST
 * protocol (`/1.1/comment-check`, `submit-spam`, `submit-ham`, `verify-key`; form-encoded
 * POSTs). comment-check answers `true` (spam) or `false`, with `X-akismet-pro-tip: discard`
 * for blatant spam and `invalid` for a bad key. The scoring job asks it; admin labels are
 * reported back. Any failure (down, slow, a bad key) is `null`: the local verdict stands.
 * @module
 */
import type { Form, Submission } from "@/lib/schemas.ts";
import { submissionText } from "@/lib/spam/submission_text.ts";

/** Where Akismet is and the key to use. */
export interface AkismetConfig {
  key: string;
  url: string;
}

/** What Akismet said of one submission: spam, blatant spam (`discard`) or ham. */
export type AkismetAnswer = "spam" | "discard" | "ham";

/** How long one Akismet call may take before the local verdict stands alone. */
export const AKISMET_TIMEOUT_MS = 3_000;

/** The fields Akismet reads, from a stored submission of `form` (`blog` = `baseUrl`). */
export function akismetParams(
  cfg: AkismetConfig,
  baseUrl: string,
  form: Form,
  sub: Submission,
): URLSearchParams {
  const name = firstString(sub.fields, NAME);
  // The author's name goes in its own parameter, not in the content.
  const rest = Object.fromEntries(Object.entries(sub.fields).filter(([k]) => !NAME.test(k)));
  const t = submissionText(form, rest);
  const p = new URLSearchParams({
    api_key: cfg.key,
    blog: baseUrl,
    comment_type: "contact-form",
    comment_content: t.subject ? `${t.subject}\n${t.text}` : t.text,
    permalink: `${baseUrl}/f/${form.id}`,
  });
  if (sub.signals.ip) p.set("user_ip", sub.signals.ip);
  if (sub.signals.user_agent) p.set("user_agent", sub.signals.user_agent);
  if (sub.signals.origin) p.set("referrer", sub.signals.origin);
  if (name) p.set("comment_author", name);
  const email = firstString(sub.fields, /^(e-?mail|email_?address)$/i);
  if (email) p.set("comment_author_email", email);
  if (sub.mode === "test") p.set("is_test", "1");
  return p;
}

const NAME = /^(name|full_?name|your_?name)$/i;

function firstString(fields: Record<string, unknown>, name: RegExp): string | undefined {
  for (const [k, v] of Object.entries(fields)) {
    if (name.test(k) && typeof v === "string" && v.trim()) return v.trim().slice(0, 300);
  }
  return undefined;
}

async function post(
  cfg: AkismetConfig,
  path: string,
  body: URLSearchParams,
): Promise<Response | null> {
  try {
    return await fetch(`${cfg.url}/1.1/${path}`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body,
      signal: AbortSignal.timeout(AKISMET_TIMEOUT_MS),
    });
  } catch {
    return null;
  }
}

/** comment-check: Akismet's answer, or null when it could not give one (the key is never logged). */
export async function akismetCheck(
  cfg: AkismetConfig,
  params: URLSearchParams,
): Promise<AkismetAnswer | null> {
  const res = await post(cfg, "comment-check", params);
  if (!res) return null;
  const text = (await res.text().catch(() => "")).trim();
  if (!res.ok) return null;
  if (text === "true") {
    return res.headers.get("x-akismet-pro-tip") === "discard" ? "discard" : "spam";
  }
  if (text === "false") return "ham";
  warn("akismet comment-check gave no answer", res.headers.get("x-akismet-debug-help"));
  return null;
}

/** submit-spam / submit-ham: reports an admin's label; true when Akismet thanked us. */
export async function akismetSubmit(
  cfg: AkismetConfig,
  label: "spam" | "ham",
  params: URLSearchParams,
): Promise<boolean> {
  const res = await post(cfg, label === "spam" ? "submit-spam" : "submit-ham", params);
  if (!res) return false;
  const text = (await res.text().catch(() => "")).trim();
  return res.ok && text.startsWith("Thanks");
}

/** verify-key: whether Akismet accepts the key for `blog` (null when it did not answer). */
export async function akismetVerifyKey(
  cfg: AkismetConfig,
  blog: string,
): Promise<boolean | null> {
  const res = await post(cfg, "verify-key", new URLSearchParams({ key: cfg.key, blog }));
  if (!res || !res.ok) return null;
  const text = (await res.text().catch(() => "")).trim();
  return text === "valid" ? true : text === "invalid" ? false : null;
}

function warn(msg: string, help: string | null): void {
  console.error(JSON.stringify({ level: "warn", msg, help: help?.slice(0, 200) ?? null }));
}
