/**
 * The content model's tokenizer: the same function reads training mail and form text.
 * Markup is stripped to text (its presence becomes a token), links and addresses become
 * host tokens, words are lower-cased and NFKC-normalised, numbers collapse to their
 * length. Output is the distinct tokens in order of first appearance (stable).
 * @module
 */

/** Words longer than this are encoded junk (base64, hashes), not words. */
const MAX_WORD = 24;
/** At most this many characters of one text are read (the model needs no more). */
export const MAX_CHARS = 20_000;

const TAG = /<\/?([a-z][a-z0-9]*)\b[^>]*>/gi;
const HREF = /^<a\s[^>]*\bhref\s*=\s*(?:["']([^"']*)["']|([^\s>]+))/i;
const COMMENT = /<!--[\s\S]*?-->/g;
const HIDDEN = /<(style|script|head)\b[^>]*>[\s\S]*?<\/\1\s*>/gi;
const ENTITY = /&(#x?[0-9a-f]+|[a-z]+);/gi;
const URL = /\b(?:https?:\/\/|www\.)([^\s<>"'()\/?#]+)[^\s<>"']*/gi;
const EMAIL = /\b[\w.+-]+@([\w-]+(?:\.[\w-]+)+)/g;
const WORD = /[\p{L}\p{N}]+(?:['’_-][\p{L}\p{N}]+)*|\$|!{2,}|€|£/gu;
const CAPS = /\b[A-Z][A-Z0-9]{2,}\b/g;

const NAMED: Record<string, string> = {
  nbsp: " ",
  amp: "&",
  lt: "<",
  gt: ">",
  quot: '"',
  apos: "'",
  copy: "©",
  reg: "®",
};

function entity(_: string, name: string): string {
  const lower = name.toLowerCase();
  if (lower.startsWith("#")) {
    const code = lower.startsWith("#x") ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1));
    return Number.isFinite(code) && code > 0 && code < 0x110000 ? String.fromCodePoint(code) : " ";
  }
  return NAMED[lower] ?? " ";
}

/** Strips markup to text; returns whether the text held markup. */
export function htmlToText(text: string): { text: string; html: boolean } {
  if (!text.includes("<")) {
    return { text: text.includes("&") ? text.replace(ENTITY, entity) : text, html: false };
  }
  let tags = 0;
  const out = text
    .replace(COMMENT, "")
    .replace(HIDDEN, " ")
    .replace(TAG, (tag: string) => {
      tags++;
      // A link's target is part of what it says (mail clients show it as text too).
      const href = tag.match(HREF);
      return href ? ` ${href[1] ?? href[2]} ` : " ";
    })
    .replace(ENTITY, entity);
  return { text: tags >= 2 ? out : text.replace(ENTITY, entity), html: tags >= 2 };
}

function hostToken(host: string): string {
  const labels = host.toLowerCase().replace(/\.+$/, "").split(".").filter(Boolean);
  if (labels.length && /^\d+$/.test(labels[labels.length - 1])) return "url:ip";
  return "url:" + labels.slice(-2).join(".");
}

/** The distinct tokens of a text, in order of first appearance. */
export function tokenize(input: string): string[] {
  const tokens = new Set<string>();
  const { text: plain, html } = htmlToText(input.slice(0, MAX_CHARS));
  if (html) tokens.add("meta:html");
  let links = 0;
  let text = plain.normalize("NFKC");
  if (text.includes("http") || text.includes("www.")) {
    text = text.replace(URL, (_, host: string) => {
      links++;
      tokens.add(hostToken(host));
      return " ";
    });
  }
  if (links) tokens.add(links >= 5 ? "meta:links5+" : links >= 2 ? "meta:links2+" : "meta:link");
  if (text.includes("@")) {
    text = text.replace(EMAIL, (_, domain: string) => {
      tokens.add("meta:email");
      return ` ${domain} `;
    });
  }
  // `match` with a global pattern gives the matched strings only: no match object each.
  if ((text.match(CAPS)?.length ?? 0) >= 5) tokens.add("meta:caps5+");
  for (const word of text.toLowerCase().match(WORD) ?? []) {
    if (word.length > MAX_WORD) continue;
    const c = word.charCodeAt(0);
    tokens.add(c >= 48 && c <= 57 && /^\d+$/.test(word) ? `num:${Math.min(word.length, 9)}` : word);
  }
  return [...tokens];
}
