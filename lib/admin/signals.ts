/**
 * A submission's request signals and spam reasons in words for the admin (the stored codes
 * stay as they are for the API).
 * @module
 */
import type { SubmissionSignals } from "@/lib/schemas.ts";

const REASONS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^filled_too_fast$/, () => "Filled in under 1.5 seconds"],
  [/^filled_fast$/, () => "Filled in under 3 seconds"],
  [/^no_user_agent$/, () => "Sent without a user agent (no browser)"],
  [/^duplicate_payload$/, () => "The same message was sent before"],
  [/^mostly_links$/, () => "The text is mostly links"],
  [/^links_(\d+)$/, (m) => `${m[1]} links in the values`],
  [/^recent_failures_(\d+)$/, (m) => `${m[1]} failed CAPTCHA or honeypot checks just before`],
  [/^burst_from_identity_(\d+)$/, (m) => `${m[1]} submissions from the same sender just before`],
  [/^captcha_score_(.+)$/, (m) => `Low CAPTCHA score (${m[1]})`],
];

/** A spam reason code in words; an unknown code is shown with spaces for underscores. */
export function reasonInWords(code: string): string {
  for (const [re, say] of REASONS) {
    const m = code.match(re);
    if (m) return say(m);
  }
  const plain = code.replace(/_/g, " ");
  return plain.charAt(0).toUpperCase() + plain.slice(1);
}

/**
 * What sent a submission, from what is known: an API key; a browser page (browsers always
 * send `Origin` with a form POST or fetch); else a client that sent no Origin (curl, a script).
 */
export function sentWith(sig: SubmissionSignals): string {
  if (sig.via_key) return "A server, with an API key";
  if (sig.origin) return "A browser, from a web page";
  return "A client without a browser Origin (curl, a script or a server)";
}
