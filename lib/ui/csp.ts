/**
 * Content-Security-Policy of the server-rendered pages: the admin's fixed policy and the
 * hosted pages' policy, which allows only the form's own CAPTCHA provider.
 * @module
 */
import type { Config } from "@/lib/config.ts";
import { type Form, isFileType } from "@/lib/schemas.ts";

/** What the hosted policy reads from the configuration. */
export type CspConfig = Pick<Config, "baseUrl" | "publicBaseUrl" | "storage" | "s3">;

/**
 * The admin's policy (also the API reference page's), as Hono's `secureHeaders` directives:
 * everything from our origin only, no framing, no inline code.
 */
export const ADMIN_CSP = {
  defaultSrc: ["'none'"],
  scriptSrc: ["'self'"],
  styleSrc: ["'self'"],
  imgSrc: ["'self'", "data:"],
  connectSrc: ["'self'"],
  formAction: ["'self'"],
  baseUri: ["'none'"],
  frameAncestors: ["'none'"],
};

/** What each CAPTCHA provider's widget loads, by CSP directive (the providers' own lists). */
const PROVIDER_SOURCES: Record<string, Partial<Record<Directive, string[]>>> = {
  turnstile: {
    "script-src": ["https://challenges.cloudflare.com"],
    "frame-src": ["https://challenges.cloudflare.com"],
  },
  hcaptcha: {
    "script-src": ["https://hcaptcha.com", "https://*.hcaptcha.com"],
    "frame-src": ["https://hcaptcha.com", "https://*.hcaptcha.com"],
    "style-src": ["https://hcaptcha.com", "https://*.hcaptcha.com"],
    "connect-src": ["https://hcaptcha.com", "https://*.hcaptcha.com"],
  },
  recaptcha: {
    "script-src": ["https://www.google.com/recaptcha/", "https://www.gstatic.com/recaptcha/"],
    "frame-src": ["https://www.google.com/recaptcha/", "https://recaptcha.google.com/recaptcha/"],
  },
  // Served from our origin; its self-contained bundle runs proof-of-work workers from blob:
  // URLs and injects its own <style> element.
  altcha: { "worker-src": ["blob:"], "style-src": ["'unsafe-inline'"] },
};

type Directive =
  | "script-src"
  | "style-src"
  | "img-src"
  | "connect-src"
  | "frame-src"
  | "worker-src"
  | "form-action";

/**
 * Where a browser PUTs uploaded files: our public origin (local storage), or the bucket's
 * (virtual-hosted and path-style, as the S3 client picks by bucket name).
 */
export function uploadOrigins(config: CspConfig): string[] {
  if (config.storage !== "s3") return [new URL(config.publicBaseUrl).origin];
  const { endpoint, bucket, region, forcePathStyle } = config.s3;
  const base = new URL(endpoint ?? `https://s3.${region}.amazonaws.com`);
  return forcePathStyle ? [base.origin] : [base.origin, `${base.protocol}//${bucket}.${base.host}`];
}

/** An absolute http(s) URL's origin, or null. */
function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return u.protocol === "https:" || u.protocol === "http:" ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * A hosted page's policy. Without a form (message pages) nothing may be posted; with one,
 * the page posts to our origin, whose 303 may lead to the form's redirects, its
 * `allowed_origins` (a `_redirect` may name them) or `BASE_URL`'s origin; a form with file
 * fields may also upload to the storage's origin.
 */
export function hostedCsp(
  form: Pick<Form, "captcha" | "redirect" | "allowed_origins" | "fields"> | null,
  config: CspConfig | null,
): string {
  const src: Record<Directive, string[]> = {
    "script-src": ["'self'"],
    "style-src": ["'self'"],
    "img-src": ["'self'", "data:"],
    "connect-src": ["'self'"],
    "frame-src": [],
    "worker-src": [],
    "form-action": form ? ["'self'"] : [],
  };
  if (form && config) {
    if (form.fields.some((f) => isFileType(f.type))) {
      for (const o of uploadOrigins(config)) src["connect-src"].push(o);
    }
    const provider = form.captcha?.provider ?? "none";
    for (const [d, list] of Object.entries(PROVIDER_SOURCES[provider] ?? {})) {
      src[d as Directive].push(...list);
    }
    const targets = [
      config.baseUrl,
      form.redirect.success,
      form.redirect.error,
      ...form.allowed_origins,
    ];
    for (const o of targets.map(originOf)) {
      if (o && !src["form-action"].includes(o)) src["form-action"].push(o);
    }
  }
  const parts = ["default-src 'none'"];
  for (const [d, list] of Object.entries(src)) {
    parts.push(`${d} ${list.length ? list.join(" ") : "'none'"}`);
  }
  return [...parts, "base-uri 'none'"].join("; ");
}
