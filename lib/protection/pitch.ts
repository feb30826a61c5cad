/**
 * Signs that a short note with a link is a sales pitch, not a question: where its links
 * lead (a link shortener, a bare IP address, a domain ending much used for spam), how many
 * pitch phrases it holds (money, SEO, crypto, prizes, "guaranteed", "click here"…) and
 * whether it shouts. Each sign is a reason with its points (lib/protection/score.ts adds
 * them). Where a link leads is no sign when it is the sender's own site (the domain of its
 * e-mail address) or the site the form is on; what the text says counts whatever the link.
 * Pure.
 * @module
 */

/** A link in free text, as score.ts counts them (markup links are read by their URL). */
const LINK = /\b(?:https?:\/\/|www\.)[^\s<>"']+/gi;
/** A link's host and what follows it. */
const HOST = /^(?:https?:\/\/)?(?:www\.)?([^\s<>"'()\/?#:]+)/i;
const IPV4 = /^\d{1,3}(?:\.\d{1,3}){3}$/;

/** Second-level labels under which a country code registers names (`co.uk`, `com.au`). */
const SECOND_LEVEL = new Set(["co", "com", "net", "org", "ac", "gov", "edu", "ne", "or", "go"]);

/**
 * Public link shorteners: the link hides where it leads, which a real sender writing a few
 * lines to a business has no reason to do.
 */
const SHORTENERS = new Set([
  "bit.ly",
  "bitly.com",
  "tinyurl.com",
  "t.co",
  "goo.gl",
  "is.gd",
  "v.gd",
  "cutt.ly",
  "rb.gy",
  "ow.ly",
  "buff.ly",
  "shorturl.at",
  "tiny.cc",
  "t.ly",
  "rebrand.ly",
  "s.id",
  "bl.ink",
  "shorte.st",
  "adf.ly",
  "tiny.one",
  "soo.gd",
  "clck.ru",
  "u.to",
  "qr.ae",
]);

/**
 * Domain endings with a large share of abuse in published abuse statistics (Spamhaus'
 * "most abused top-level domains", Interisle's phishing studies): cheap or free to register,
 * little else lives there. Country endings used by ordinary businesses (`.ru`, `.cn`, `.in`)
 * and general ones like `.shop` or `.online` are not listed: too many real senders.
 */
const ABUSED_TLDS = new Set([
  "xyz",
  "top",
  "click",
  "buzz",
  "icu",
  "cyou",
  "sbs",
  "cfd",
  "bond",
  "rest",
  "monster",
  "win",
  "bid",
  "loan",
  "work",
  "fit",
  "biz",
  "pw",
  "su",
  "tk",
  "ml",
  "ga",
  "cf",
  "gq",
  "cam",
  "quest",
  "lol",
  "country",
  "stream",
  "download",
  "racing",
  "review",
  "party",
  "date",
  "trade",
  "accountant",
  "science",
  "cricket",
  "faith",
  "webcam",
  "men",
]);

/**
 * Phrases of unsolicited pitches, by theme: making money, loans and investing, crypto,
 * prizes and gambling, traffic/SEO/followers for sale, pills, and the promises and calls to
 * act of advertising. Sums of money and percentages (`$500`, `1,000 USD`, `50% off`, `100%`)
 * count as one phrase together. Words ordinary customers use in other senses are not listed (price,
 * quote, discount, free, guarantee, cash, credit, returns, wallet, trading, sign up, likes,
 * leads, winner, congratulations, sponsored).
 */
const PITCH = new RegExp(
  String.raw`\b(?:earn|earns|earning|earnings|income|profits?|make money|payouts?|loans?|` +
    String.raw`bad credit|no credit check|cash advance|invest|investment|investments|investor|` +
    String.raw`investors|investing|forex|bitcoin|btc|crypto|airdrop|casino|bonus|spins|jackpot|` +
    String.raw`lottery|prizes?|winnings|seo|backlinks?|rankings?|traffic|followers|` +
    String.raw`lead generation|guest posts?|sponsored (?:posts?|articles?)|dofollow|first page|` +
    String.raw`5[- ]stars?|viagra|cialis|pharmacy|prescription|pills?|weight loss|lose weight|` +
    String.raw`guaranteed|risk[- ]free|no experience|limited (?:time|offer|spots)|act now|` +
    String.raw`click here|order now|buy now|apply now|join now|cheap|cheapest|lowest prices?|` +
    String.raw`best prices?|double your|\d+x)\b|100%|\b\d+% off\b|[$€£]\s?\d|` +
    String.raw`\b\d[\d,.]*\s?(?:usd|eur|dollars)\b`,
  "gi",
);

/** Capitalised words of four letters or more (acronyms such as VAT or API are shorter). */
const CAPS_WORD = /\b[A-Z]{4,}\b/g;
/** Three exclamation marks or dollar signs in a row. */
const BANGS = /!{3,}|\${3,}/;

/** The phrase a pitch match counts as: sums of money and percentages are all one. */
function phraseOf(match: string): string {
  const p = match.toLowerCase();
  if (/^[$€£]|\d\s?(?:usd|eur|dollars)$|%/.test(p)) return "figure";
  // One phrase in the singular and the plural is one phrase (loan, loans).
  return /^[a-z]{3,}s$/.test(p) ? p.slice(0, -1) : p;
}

/** The registrable domain of a host (lower case): `shop.example.co.uk` → `example.co.uk`. */
export function siteOfHost(host: string): string {
  const labels = host.toLowerCase().replace(/\.+$/, "").split(".");
  const n = labels.length;
  const three = n >= 3 && labels[n - 1].length === 2 && SECOND_LEVEL.has(labels[n - 2]);
  return labels.slice(three ? -3 : -2).join(".");
}

/** The site of an e-mail address or of a URL (an origin), or "" when it has none. */
export function siteOf(addressOrUrl: string): string {
  const at = addressOrUrl.lastIndexOf("@");
  const host = at >= 0 ? addressOrUrl.slice(at + 1).trim() : addressOrUrl.match(HOST)?.[1] ?? "";
  return /^[\w-]+(?:\.[\w-]+)+$/.test(host) ? siteOfHost(host) : "";
}

/**
 * The pitch signs of a short free text holding a link (`text`: the free-text values joined);
 * links to `ownSites` (the sender's and the form's) say nothing by where they lead. Returns
 * reasons with their points; none when the text holds no link.
 */
export function pitchSigns(text: string, ownSites: ReadonlySet<string>): [number, string][] {
  let links = 0;
  let shortener = false;
  let ip = false;
  let tld = "";
  for (const m of text.matchAll(LINK)) {
    const host = m[0].match(HOST)?.[1]?.toLowerCase().replace(/\.+$/, "");
    if (!host) continue;
    links++;
    if (IPV4.test(host)) {
      ip = true;
      continue;
    }
    if (ownSites.has(siteOfHost(host))) continue;
    if (SHORTENERS.has(host)) shortener = true;
    const ending = host.slice(host.lastIndexOf(".") + 1);
    if (!tld && ABUSED_TLDS.has(ending)) tld = ending;
  }
  if (!links) return [];
  const out: [number, string][] = [];
  if (ip) out.push([25, "link_ip"]);
  if (shortener) out.push([25, "link_shortener"]);
  if (tld) out.push([15, `link_tld_${tld}`]);
  const plain = text.replace(LINK, " ");
  const phrases = new Set<string>();
  for (const p of plain.match(PITCH) ?? []) phrases.add(phraseOf(p));
  if (phrases.size) out.push([Math.min(45, 15 * phrases.size), `pitch_words_${phrases.size}`]);
  if ((plain.match(CAPS_WORD)?.length ?? 0) >= 3 || BANGS.test(plain)) out.push([15, "shouting"]);
  return out;
}
