/**
 * Spam scoring: a pure function from a submission's soft signals to a score (0..100),
 * its reasons and a status. Hard signals (honeypot, failed CAPTCHA, a blocked repeat
 * offender) never get here: submit refuses them with 403. Weights and thresholds are
 * documented in docs/decisions/spam-scoring.md.
 * @module
 */
import type { Status, SubmissionSignals } from "@/lib/schemas.ts";
import type { ContentResult, ContentThresholds } from "@/lib/spam/model.ts";
import type { AkismetAnswer } from "./akismet.ts";
import { pitchSigns } from "./pitch.ts";

/** At or above this score a submission is `suspicious`. */
export const SUSPICIOUS_AT = 40;
/** At or above this score a submission is `spam`. */
export const SPAM_AT = 70;
/** Content at or above this spam probability counts as suspicious on its own (+40). */
export const CONTENT_SUSPICIOUS_P = 0.9;
/** Content at or above this spam probability counts as spam on its own (+70). */
export const CONTENT_SPAM_P = 0.998;
/** Content leaning spam (at or above this, +15) adds to behavioural signals. */
export const CONTENT_LEANING_P = 0.75;
/** The content thresholds used when the model names none. */
export const DEFAULT_CONTENT_THRESHOLDS: ContentThresholds = {
  leaning: CONTENT_LEANING_P,
  suspicious: CONTENT_SUSPICIOUS_P,
  spam: CONTENT_SPAM_P,
};
/** In a short note with a link, content at or above this probability adds 10. */
export const SHORT_LINK_LEANING_P = 0.6;
/** Below this probability the content reads as ham, and links weigh a quarter. */
export const CONTENT_HAM_P = 0.3;
/** Window for the per-identity rate and duplicate signals. */
export const RECENT_WINDOW_MS = 10 * 60_000;

/** What the scorer looks at for one submission. */
export interface SpamInput {
  signals: SubmissionSignals;
  fields: Record<string, unknown>;
  /** Names of `url`-typed fields: a link there is expected, not a signal. */
  urlFields: ReadonlySet<string>;
  /**
   * The sites (registrable domains) of the sender's e-mail address and of the page the form
   * was sent from: a link to one of them in a short note is no pitch sign (lib/protection/pitch.ts).
   */
  ownSites?: ReadonlySet<string>;
  /** Earlier submissions to this form from the same identity within RECENT_WINDOW_MS. */
  recentFromIdentity: number;
  /** Whether an earlier submission of this form in the window had the same values. */
  duplicate: boolean;
  /** The content model's reading of the text, when it was scored (lib/spam). */
  content?: ContentResult;
  /** The content probabilities that add 15, 40 and 70 points (the model's; else defaults). */
  contentThresholds?: ContentThresholds;
  /** Akismet's answer, when it is on and answered (the scoring job asks it). */
  secondOpinion?: AkismetAnswer;
  /** The form's score thresholds (its `spam_filter` setting; else SUSPICIOUS_AT, SPAM_AT). */
  scoreThresholds?: { suspicious_at?: number; spam_at?: number };
}

/** The scorer's answer. */
export interface SpamVerdict {
  score: number;
  reasons: string[];
  status: Status;
  /** The content figure and the tokens that drove it, when the content was scored. */
  content?: ContentResult;
}

const LINK = /\b(?:https?:\/\/|www\.)[^\s<>"']+|\[url[=\]]|<a\s+href/gi;

const LINK_HOST = /^(?:https?:\/\/|www\.)(?:www\.)?([^\s<>"'()\/?#:]+)/i;

/** The site a link points at: its host's last two labels (lower case), or null. */
function siteOf(link: string): string | null {
  const host = link.match(LINK_HOST)?.[1];
  return host ? host.toLowerCase().replace(/\.+$/, "").split(".").slice(-2).join(".") : null;
}

/**
 * Counts links, the distinct sites they point at and their share of the free text
 * (url-typed fields excluded), and the free text's length.
 */
export function linkStats(
  fields: Record<string, unknown>,
  urlFields: ReadonlySet<string>,
): { links: number; sites: number; density: number; chars: number } {
  let links = 0;
  let linkChars = 0;
  let chars = 0;
  const sites = new Set<string>();
  for (const [name, value] of Object.entries(fields)) {
    if (urlFields.has(name)) continue;
    for (const text of textsOf(value)) {
      chars += text.length;
      for (const m of text.matchAll(LINK)) {
        links++;
        linkChars += m[0].length;
        const site = siteOf(m[0]);
        if (site) sites.add(site);
      }
    }
  }
  return { links, sites: sites.size, density: chars ? linkChars / chars : 0, chars };
}

/**
 * Free text shorter than this is a short text: the model's own short-text thresholds
 * apply, and its links always count in full (the model cannot vouch for them).
 */
export const SHORT_TEXT_CHARS = 400;

/** Text at least this long is a message someone wrote, not a choice or a short answer. */
const MESSAGE_CHARS = 20;

function hasMessage(fields: Record<string, unknown>): boolean {
  return Object.values(fields).some((v) =>
    textsOf(v).some((t) => t.trim().length >= MESSAGE_CHARS)
  );
}

const NO_SITES: ReadonlySet<string> = new Set();

/** The free text of the fields (url-typed fields excluded), one value a line. */
function freeText(fields: Record<string, unknown>, urlFields: ReadonlySet<string>): string {
  const out: string[] = [];
  for (const [name, value] of Object.entries(fields)) {
    if (!urlFields.has(name)) out.push(...textsOf(value));
  }
  return out.join("\n");
}

function textsOf(value: unknown): string[] {
  if (typeof value === "string") return [value];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return [];
}

/** Scores one submission. Deterministic and side-effect free. */
export function scoreSpam(input: SpamInput): SpamVerdict {
  const s = input.signals;
  const parts: [number, string][] = [];

  if (s.captcha?.score !== undefined) {
    // reCAPTCHA v3 scores at or above the form's minimum already passed the gate;
    // a low passing score still counts (0.5 adds 20, 0.9 adds 4).
    const add = Math.round((1 - s.captcha.score) * 40);
    if (add >= 5) parts.push([add, `captcha_score_${s.captcha.score}`]);
  }

  const failures = s.failures ?? 0;
  if (failures >= 3) parts.push([45, `recent_failures_${failures}`]);
  else if (failures >= 1) parts.push([15 * failures, `recent_failures_${failures}`]);

  if (s.fill_ms !== undefined) {
    if (s.fill_ms < 1_500) parts.push([45, "filled_too_fast"]);
    else if (s.fill_ms < 3_000) parts.push([25, "filled_fast"]);
  }

  // A backend submitting with a key sends everyone's submissions from one address.
  if (!s.via_key) {
    const n = input.recentFromIdentity;
    if (n >= 10) parts.push([45, `burst_from_identity_${n}`]);
    else if (n >= 6) parts.push([30, `burst_from_identity_${n}`]);
    else if (n >= 3) parts.push([15, `burst_from_identity_${n}`]);
    if (!s.user_agent) parts.push([10, "no_user_agent"]);
  }

  // The same free text again is a paste blast; the same short answers (a poll, a rating)
  // are just people agreeing, so only a duplicate holding a real message counts.
  if (input.duplicate && hasMessage(input.fields)) parts.push([40, "duplicate_payload"]);

  const { links, sites, density, chars } = linkStats(input.fields, input.urlFields);
  const content = input.content;
  if (content) {
    const p = content.p;
    const all = input.contentThresholds ?? DEFAULT_CONTENT_THRESHOLDS;
    const t = chars < SHORT_TEXT_CHARS && all.short ? all.short : all;
    const add = p >= t.spam ? 70 : p >= t.suspicious ? 40 : p >= t.leaning ? 15 : 0;
    // A short note with a link whose words lean spam, below the leaning threshold: a little.
    const lean = !add && links > 0 && chars < SHORT_TEXT_CHARS && p >= SHORT_LINK_LEANING_P
      ? 10
      : 0;
    if (add || lean) parts.push([add || lean, `content_${Math.floor(p * 1000) / 1000}`]);
  }

  // Akismet's opinion: spam counts as suspicious on its own, blatant spam as spam.
  if (input.secondOpinion === "discard") parts.push([70, "akismet_discard"]);
  else if (input.secondOpinion === "spam") parts.push([40, "akismet_spam"]);

  // Links are weighed by what the text around them says: in a long message the model
  // reads as ham (a mailing-list footer, docs links) they count a quarter.
  const linkWeight = content && content.p < CONTENT_HAM_P && chars >= SHORT_TEXT_CHARS ? 0.25 : 1;
  const link = (points: number, reason: string) => {
    const add = Math.round(points * linkWeight);
    if (add) parts.push([add, reason]);
  };
  if (links >= 5) link(45, `links_${links}`);
  else if (links >= 3) link(25, `links_${links}`);
  else if (links === 2) link(10, "links_2");
  // One link in a short note is normal; several making up most of the text are not.
  if (links >= 2 && density > 0.5) link(20, "mostly_links");
  // A short note linking to three or more different sites is a pitch, not a question
  // about a page (long mail links to many sites for other reasons: newsletters, lists).
  if (sites >= 3 && chars < SHORT_TEXT_CHARS) link(15, `link_sites_${sites}`);
  // A short note linking to another site: where the links lead, pitch phrases, shouting.
  if (links && chars < SHORT_TEXT_CHARS) {
    const text = freeText(input.fields, input.urlFields);
    for (const [points, reason] of pitchSigns(text, input.ownSites ?? NO_SITES)) {
      parts.push([points, reason]);
    }
  }

  const score = Math.min(100, parts.reduce((n, [p]) => n + p, 0));
  const spamAt = input.scoreThresholds?.spam_at ?? SPAM_AT;
  const suspiciousAt = input.scoreThresholds?.suspicious_at ?? SUSPICIOUS_AT;
  const status: Status = score >= spamAt
    ? "spam"
    : score >= suspiciousAt
    ? "suspicious"
    : "completed";
  const verdict: SpamVerdict = { score, reasons: parts.map(([, r]) => r), status };
  if (content) verdict.content = content;
  return verdict;
}
