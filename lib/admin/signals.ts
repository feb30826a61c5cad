/**
 * A submission's request signals and spam reasons in words for the admin (the stored codes
 * stay as they are for the API).
 * @module
 */
import type { SubmissionSignals } from "@/lib/schemas.ts";
import { count } from "@/components/count.ts";

const REASONS: [RegExp, (m: RegExpMatchArray) => string][] = [
  [/^filled_too_fast$/, () => "Filled in under 1.5 seconds"],
  [/^filled_fast$/, () => "Filled in under 3 seconds"],
  [/^no_user_agent$/, () => "Sent without a user agent (no browser)"],
  [/^duplicate_payload$/, () => "The same message was sent before"],
  [/^mostly_links$/, () => "The text is mostly links"],
  [/^links_(\d+)$/, (m) => `${count(Number(m[1]), "link")} in the values`],
  [
    /^link_sites_(\d+)$/,
    (m) => `A short note linking to ${count(Number(m[1]), "different site")}`,
  ],
  [/^link_ip$/, () => "A short note linking to a bare IP address"],
  [
    /^link_shortener$/,
    () => "A short note with a shortened link (bit.ly and the like): it hides where it leads",
  ],
  [
    /^link_tld_([a-z0-9-]+)$/,
    (m) => `A short note linking to a .${m[1]} site (a domain ending much used for spam)`,
  ],
  [
    /^pitch_words_(\d+)$/,
    (m) =>
      `A short note with a link and ${
        count(Number(m[1]), "sales-pitch phrase")
      } (money, SEO, crypto, “guaranteed”, “click here”…)`,
  ],
  [/^shouting$/, () => "A short note with a link that shouts (words in capitals, “!!!”)"],
  [
    /^recent_failures_(\d+)$/,
    (m) => `${count(Number(m[1]), "failed CAPTCHA or honeypot check")} just before`,
  ],
  [
    /^burst_from_identity_(\d+)$/,
    (m) => `${count(Number(m[1]), "submission")} from the same sender just before`,
  ],
  [/^captcha_score_(.+)$/, (m) => `Low CAPTCHA score (${m[1]})`],
  [/^content_([\d.]+)$/, (m) => `Content: ${contentPercent(Number(m[1]))}% spam-like`],
];

/** A content probability as a whole percentage (never 100 unless it is exactly 1). */
export function contentPercent(p: number): number {
  const pct = Math.floor(p * 100);
  return Number.isFinite(pct) ? Math.min(100, Math.max(0, pct)) : 0;
}

const META: Record<string, string> = {
  "meta:html": "HTML markup",
  "meta:link": "a link",
  "meta:links2+": "several links",
  "meta:links5+": "five or more links",
  "meta:email": "an email address",
  "meta:caps5+": "many words in capitals",
};

/** A content-model token in words (`url:example.com` → "a link to example.com"). */
export function tokenInWords(token: string): string {
  if (META[token]) return META[token];
  if (token === "url:ip") return "a link to a bare IP address";
  if (token.startsWith("url:")) return `a link to ${token.slice(4)}`;
  const num = token.match(/^num:(\d)$/);
  if (num) return `a ${num[1]}${num[1] === "9" ? "+" : ""}-digit number`;
  return `“${token}”`;
}

/** One piece of a highlighted text: `mark` when it is a word that drove the verdict. */
export interface TextPart {
  text: string;
  mark: boolean;
}

const WORD = /[\p{L}\p{N}]+(?:['’_-][\p{L}\p{N}]+)*/gu;

/**
 * Splits `text` into plain and marked parts: a word is marked when its lower-cased NFKC form
 * is one of `tokens` (the content model's words; `url:` and `meta:` tokens are not words).
 * The parts are text: the page renders them escaped, marked ones inside `<mark>`.
 */
export function highlightParts(text: string, tokens: readonly string[]): TextPart[] {
  const words = new Set(tokens.filter((t) => !t.includes(":")));
  if (!words.size) return [{ text, mark: false }];
  const parts: TextPart[] = [];
  let at = 0;
  for (const m of text.matchAll(WORD)) {
    if (!words.has(m[0].normalize("NFKC").toLowerCase())) continue;
    if (m.index! > at) parts.push({ text: text.slice(at, m.index), mark: false });
    parts.push({ text: m[0], mark: true });
    at = m.index! + m[0].length;
  }
  if (at < text.length) parts.push({ text: text.slice(at), mark: false });
  return parts;
}

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
