/**
 * Browser-side calls of the hosted form: analytics events, validation, the signed-URL
 * upload (XMLHttpRequest, for upload progress) and the JSON submit.
 * @module
 */
import type { Field } from "@/lib/schemas.ts";
import type { HostedCaptcha } from "./types.ts";

/** A 4xx/5xx answer of the API, or a network failure (`status` 0). */
export interface ApiAnswer {
  status: number;
  body: Record<string, unknown> | null;
}

/** POSTs JSON; never throws (a network failure is status 0). */
export async function postJson(
  url: string,
  body: unknown,
  headers: Record<string, string> = {},
  keepalive = false,
): Promise<ApiAnswer> {
  try {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify(body),
      keepalive,
      credentials: "omit",
    });
    let json: Record<string, unknown> | null = null;
    try {
      json = await res.json();
    } catch {
      json = null;
    }
    return { status: res.status, body: json };
  } catch {
    return { status: 0, body: null };
  }
}

/**
 * Sends a `view` (of a step, 1-based, on a form with steps) or `start` event; failures are
 * ignored (analytics never blocks the form).
 */
export function sendEvent(
  apiBase: string,
  formId: string,
  type: "view" | "start",
  session: string,
  step?: number,
) {
  void postJson(
    `${apiBase}/forms/p/${encodeURIComponent(formId)}/events`,
    { type, session_id: session, ...(step ? { step } : {}) },
    {},
    true,
  );
}

/** A file reference as the submission carries it. */
export interface FileRef {
  path: string;
  originalFilename: string;
  mimeType: string;
  sizeBytes: number;
}

/** Thrown with a message fit to show next to the field. */
export class UploadError extends Error {}

function messageOf(body: Record<string, unknown> | null, fallback: string): string {
  const items = body?.errors;
  if (Array.isArray(items) && items[0] && typeof items[0].message === "string") {
    return items[0].message;
  }
  return typeof body?.error === "string" ? body.error : fallback;
}

/** Asks for a signed URL, PUTs the bytes with progress, and returns the file reference. */
export async function uploadFile(
  apiBase: string,
  formId: string,
  field: Field,
  file: File,
  onProgress: (fraction: number) => void,
): Promise<FileRef> {
  const contentType = file.type || "application/octet-stream";
  const grant = await postJson(`${apiBase}/forms/p/${encodeURIComponent(formId)}/upload-url`, {
    fieldId: field.id,
    fileName: file.name,
    contentType,
    sizeBytes: file.size,
  });
  if (grant.status !== 200 || typeof grant.body?.uploadUrl !== "string") {
    throw new UploadError(messageOf(grant.body, "The file could not be uploaded. Try again."));
  }
  const g = grant.body as { path: string; uploadUrl: string; storageToken?: string };
  await new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("PUT", g.uploadUrl);
    xhr.setRequestHeader("Content-Type", contentType);
    if (g.storageToken) xhr.setRequestHeader("Authorization", `Bearer ${g.storageToken}`);
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable && e.total > 0) onProgress(e.loaded / e.total);
    };
    xhr.onload = () => {
      if (xhr.status >= 200 && xhr.status < 300) return resolve();
      let body: Record<string, unknown> | null = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch { /* storage may answer XML or nothing */ }
      reject(new UploadError(messageOf(body, "The upload was refused.")));
    };
    xhr.onerror = () =>
      reject(new UploadError("The upload failed. Check your connection and try again."));
    xhr.send(file);
  });
  onProgress(1);
  return { path: g.path, originalFilename: file.name, mimeType: contentType, sizeBytes: file.size };
}

/** A random id for the analytics session of one page view. */
export function sessionId(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(12));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** reCAPTCHA v3 has no widget: a token is asked for at submit time. */
export async function recaptchaV3Token(siteKey: string, action: string): Promise<string | null> {
  const g = (globalThis as unknown as {
    grecaptcha?: {
      ready: (cb: () => void) => void;
      execute: (key: string, o: { action: string }) => Promise<string>;
    };
  }).grecaptcha;
  if (!g) return null;
  try {
    await new Promise<void>((r) => g.ready(r));
    return await g.execute(siteKey, { action });
  } catch {
    return null;
  }
}

/** The form field each CAPTCHA widget puts its token in. */
const TOKEN_FIELDS: Record<string, string> = {
  turnstile: "cf-turnstile-response",
  hcaptcha: "h-captcha-response",
  recaptcha: "g-recaptcha-response",
  altcha: "altcha",
};

/** The CAPTCHA token to send with a submit: the widget's, or reCAPTCHA v3's asked now. */
export async function captchaToken(
  c: HostedCaptcha | null,
  form: HTMLFormElement,
): Promise<string | undefined> {
  if (!c) return undefined;
  if (c.provider === "recaptcha" && c.version === "v3") {
    return (await recaptchaV3Token(c.siteKey ?? "", c.action ?? "submit")) ?? undefined;
  }
  const v = new FormData(form).get(TOKEN_FIELDS[c.provider]);
  return typeof v === "string" && v ? v : undefined;
}
