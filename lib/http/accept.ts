/**
 * Content negotiation of the `Accept` header (RFC 9110 section 12.5.1) for the one
 * question the form-post path asks: does the client prefer JSON over an HTML page?
 * @module
 */

/** One media range of an `Accept` header, with its weight and where it was listed. */
interface Range {
  type: string;
  subtype: string;
  q: number;
  order: number;
}

/** Ranges an `Accept` header may list before the rest is ignored (a hostile header stays cheap). */
const MAX_RANGES = 50;

/** Parses an `Accept` header into media ranges; unreadable ranges are skipped. */
function parseAccept(header: string): Range[] {
  const out: Range[] = [];
  for (const [order, part] of header.split(",").slice(0, MAX_RANGES).entries()) {
    const [range, ...params] = part.split(";");
    const m = /^\s*([\w.+*-]+)\/([\w.+*-]+)\s*$/.exec(range);
    if (!m) continue;
    let q = 1;
    for (const p of params) {
      const qm = /^\s*q\s*=\s*([01](?:\.\d{0,3})?)\s*$/i.exec(p);
      if (qm) q = Math.min(1, Number(qm[1]));
    }
    out.push({ type: m[1].toLowerCase(), subtype: m[2].toLowerCase(), q, order });
  }
  return out;
}

/**
 * The weight a client gives `mediaType` with the most specific range that matches it
 * (exact, then `type/*`, then `*\/*`), and how specific that range was (3, 2, 1; 0: none).
 */
function weightOf(
  ranges: Range[],
  mediaType: string,
): { q: number; specificity: number; order: number } {
  const [type, subtype] = mediaType.split("/");
  let best = { q: 0, specificity: 0, order: Infinity };
  for (const r of ranges) {
    const specificity = r.type === type && r.subtype === subtype
      ? 3
      : r.type === type && r.subtype === "*"
      ? 2
      : r.type === "*" && r.subtype === "*"
      ? 1
      : 0;
    if (specificity > best.specificity) best = { q: r.q, specificity, order: r.order };
  }
  return best;
}

/**
 * Whether an `Accept` header prefers `application/json` to `text/html`: JSON is acceptable
 * (q > 0) and weighs more; at equal weight, the range that names JSON more specifically
 * wins, then the one listed first. `*\/*` alone (fetch's default) or no header is no
 * preference, so plain form posts keep their HTML answers.
 */
export function prefersJson(accept: string | null | undefined): boolean {
  if (!accept) return false;
  const ranges = parseAccept(accept);
  const json = weightOf(ranges, "application/json");
  const html = weightOf(ranges, "text/html");
  if (json.q <= 0) return false;
  if (json.q !== html.q) return json.q > html.q;
  if (json.specificity !== html.specificity) return json.specificity > html.specificity;
  return json.order < html.order;
}
