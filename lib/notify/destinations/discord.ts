/**
 * Discord webhooks (execute webhook): a short `content` line and one embed (title linking to
 * the admin, a field per form field, the time, a footer), with mentions turned off
 * (`allowed_mentions.parse` empty) and the name and avatar the webhook was given in
 * Discord kept, and what Discord's answers mean. Visitor text in
 * Markdown places has every Markdown character backslash-escaped; every text stays within
 * Discord's embed limits (title 256, field name 256, field value 1024, 25 fields, 6000
 * characters in all, content 2000).
 * @module
 */
import type { PostResult } from "../http1.ts";
import { type Answer, is2xx, quote, rateLimitOf, secondsToMs } from "./answer.ts";
import { fit, type Message, moreFields } from "./message.ts";

/** Discord's limits, and the share of them a message uses. */
export const DISCORD = {
  contentMax: 2000,
  titleMax: 256,
  fieldNameMax: 256,
  fieldValueMax: 1024,
  fields: 25,
  /** All embed text together (title, description, field names and values, footer). */
  totalMax: 6000,
  /** What this renderer spends of `totalMax` at most, leaving room for the closing line. */
  budget: 5600,
  labelMax: 100,
} as const;

/** Backslash-escapes one Markdown character (Discord renders any escaped punctuation as is). */
function esc(ch: string): string {
  return /[\\*_~`|>#\-\[\]()<:@]/.test(ch) ? `\\${ch}` : ch;
}

/** The Discord message of `m`, as the JSON body of an execute-webhook POST. */
export function discordBody(m: Message): string {
  const title = fit(m.title, DISCORD.titleMax);
  const footer = ["Formwell", m.number !== undefined ? `#${m.number}` : "", m.status ?? ""]
    .filter(Boolean).join(" · ");
  let spent = title.length + footer.length;
  const fields: { name: string; value: string; inline: boolean }[] = [];
  for (const f of m.fields) {
    const name = fit(f.label, DISCORD.labelMax, esc);
    const room = Math.min(DISCORD.fieldValueMax, DISCORD.budget - spent - name.length);
    // One field slot is kept for the note of the fields left out.
    if (fields.length === DISCORD.fields - 1 || room < 40) break;
    const value = fit(f.value || "—", room, esc);
    fields.push({ name, value, inline: false });
    spent += name.length + value.length;
  }
  const more = moreFields(m.fields.length - fields.length);
  const description = [m.note ? fit(m.note, 500, esc) : "", more].filter(Boolean).join("\n");
  const embed: Record<string, unknown> = {
    title,
    url: m.link,
    color: 0x4f46e5,
    fields,
    footer: { text: footer },
    timestamp: m.at,
  };
  if (description) embed.description = description;
  return JSON.stringify({
    content: fit(m.title, DISCORD.contentMax, esc),
    embeds: [embed],
    allowed_mentions: { parse: [] },
  });
}

/** The JSON body of a Discord error, if it is one. */
function errorOf(body: string): { message?: string; code?: number; retry_after?: unknown } {
  try {
    const v = JSON.parse(body);
    return v && typeof v === "object" ? v : {};
  } catch {
    return {};
  }
}

/**
 * What Discord's answer means: 2xx (204) delivered; a rate limit (429, or 503 with
 * `Retry-After`) waits the body's `retry_after` (seconds) or `Retry-After`; 401, 403, 404 (unknown webhook) and 410
 * disable; 400 (this message refused) fails without retries; the rest is retried.
 */
export function discordAnswer(r: PostResult, now: number): Answer {
  if (is2xx(r.status)) return { kind: "delivered" };
  const err = errorOf(r.body);
  const said = err.message ? `${err.message}${err.code ? ` (${err.code})` : ""}` : quote(r.body);
  const limited = rateLimitOf(r, now, secondsToMs(err.retry_after));
  if (limited) return limited;
  if ([401, 403, 404, 410].includes(r.status)) {
    return {
      kind: "disable",
      reason: `Discord answered ${r.status} ${said}: the webhook was deleted or its URL is wrong.`,
    };
  }
  if (r.status === 400) return { kind: "failed", why: `Discord refused the message: ${said}` };
  return { kind: "retry" };
}
