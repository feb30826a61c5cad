/**
 * Slack incoming webhooks: a Block Kit message (header, fields in sections, a context line
 * with the time, a link to the admin) with a `text` fallback for notifications, and what
 * Slack's answers mean. Visitor text is escaped as Slack's mrkdwn asks (`&`, `<`, `>`), in
 * `verbatim` text objects so no URL, channel or mention in it is parsed; every text stays
 * within Block Kit's limits (header 150, section field 2000, at most 10 fields a section,
 * at most 50 blocks).
 * @module
 */
import type { PostResult } from "../http1.ts";
import { type Answer, is2xx, quote, rateLimitOf } from "./answer.ts";
import { fit, type Message, moreFields } from "./message.ts";

/** Block Kit's limits, and the share of them a message uses. */
export const SLACK = {
  headerMax: 150,
  fieldsPerSection: 10,
  fieldTextMax: 2000,
  /** Fields shown at most (2 sections); the rest are counted in a closing line. */
  fieldsShown: 20,
  /** A value's share of its field text (the label takes the rest). */
  valueMax: 1500,
  labelMax: 200,
  fallbackMax: 3000,
  contextMax: 2000,
} as const;

/** Escapes one character for Slack mrkdwn. */
function esc(ch: string): string {
  return ch === "&" ? "&amp;" : ch === "<" ? "&lt;" : ch === ">" ? "&gt;" : ch;
}

/** Slack's date token: shown in each reader's time zone, the ISO time as its fallback. */
function slackDate(iso: string): string {
  const sec = Math.floor(Date.parse(iso) / 1000);
  return `<!date^${sec}^{date_short_pretty} at {time}|${iso}>`;
}

/** The Slack message of `m`, as the JSON body of an incoming webhook POST. */
export function slackBody(m: Message): string {
  const blocks: Record<string, unknown>[] = [
    { type: "header", text: { type: "plain_text", text: fit(m.title, SLACK.headerMax) } },
  ];
  if (m.note) {
    blocks.push({
      type: "section",
      text: { type: "mrkdwn", text: fit(m.note, SLACK.contextMax, esc), verbatim: true },
    });
  }
  const shown = m.fields.slice(0, SLACK.fieldsShown);
  for (let i = 0; i < shown.length; i += SLACK.fieldsPerSection) {
    blocks.push({
      type: "section",
      fields: shown.slice(i, i + SLACK.fieldsPerSection).map((f) => ({
        type: "mrkdwn",
        text: `*${fit(f.label, SLACK.labelMax, esc)}*\n${fit(f.value || "—", SLACK.valueMax, esc)}`,
        verbatim: true,
      })),
    });
  }
  const context = [
    m.number !== undefined ? `#${m.number}` : "",
    m.status ? `status ${m.status}` : "",
    slackDate(m.at),
    moreFields(m.fields.length - shown.length),
  ].filter(Boolean).join(" · ");
  blocks.push({ type: "context", elements: [{ type: "mrkdwn", text: context }] });
  blocks.push({
    type: "section",
    text: { type: "mrkdwn", text: `<${m.link}|${m.linkLabel}>` },
  });
  return JSON.stringify({
    text: fit(m.title, SLACK.fallbackMax, esc),
    blocks,
    unfurl_links: false,
    unfurl_media: false,
  });
}

/**
 * Slack's answers that no retry can fix, by the error string in the body, with what they
 * mean: the endpoint is disabled with this reason.
 */
export const SLACK_PERMANENT: Record<string, string> = {
  invalid_payload: "Slack could not read the message",
  user_not_found: "the user of the webhook no longer exists",
  action_prohibited: "an admin restricts posting through this webhook",
  channel_not_found: "the channel no longer exists",
  channel_is_archived: "the channel is archived",
  no_service: "the webhook was removed or its app uninstalled",
  no_team: "the Slack workspace no longer exists",
  team_disabled: "the Slack workspace is disabled",
  invalid_token: "the webhook URL is no longer valid",
  no_active_hooks: "the webhook was turned off",
  posting_to_general_channel_denied: "only admins may post to this channel",
};

/**
 * What Slack's answer means: `200 ok` delivered; a rate limit (`429`, or `503` with `Retry-After`) waits its
 * `Retry-After`; an
 * error string of {@linkcode SLACK_PERMANENT} (or a 410) disables; the rest is retried.
 */
export function slackAnswer(r: PostResult, now: number): Answer {
  if (is2xx(r.status)) return { kind: "delivered" };
  const limited = rateLimitOf(r, now);
  if (limited) return limited;
  const code = r.body.trim();
  const meaning = Object.hasOwn(SLACK_PERMANENT, code) ? SLACK_PERMANENT[code] : null;
  if (meaning) {
    return { kind: "disable", reason: `Slack answered ${r.status} ${code}: ${meaning}.` };
  }
  if (r.status === 410) {
    return { kind: "disable", reason: `Slack answered 410 Gone: ${quote(r.body)}` };
  }
  return { kind: "retry" };
}
