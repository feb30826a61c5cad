/**
 * Microsoft Teams through a Workflows (Power Automate) webhook: a `message` with one Adaptive
 * Card attachment (`application/vnd.microsoft.card.adaptive`, card version 1.4: title, a
 * line with the number, status and time, each field as a label and its value, an
 * `Action.OpenUrl` to the admin), and what the workflow's answers mean. Labels and values go
 * in `RichTextBlock` text runs, which Adaptive Cards never parse as Markdown, so nothing in
 * them needs escaping; the whole body stays under Teams' 28 KB message limit.
 * @module
 */
import type { PostResult } from "../http1.ts";
import { type Answer, is2xx, quote, rateLimitOf } from "./answer.ts";
import { fit, type Message, moreFields } from "./message.ts";

/** The limits a Teams message keeps. */
export const TEAMS = {
  /** Teams refuses messages over about 28 KB; the card keeps well under it. */
  bodyMaxBytes: 24_000,
  fieldsShown: 30,
  labelMax: 200,
  valueMax: 2000,
  titleMax: 300,
} as const;

const utf8 = new TextEncoder();

/** A text block whose text is never read as Markdown. */
function runs(text: string, opts: { bold?: boolean; subtle?: boolean } = {}) {
  return {
    type: "RichTextBlock",
    inlines: [{
      type: "TextRun",
      text,
      ...(opts.bold ? { weight: "Bolder" } : {}),
      ...(opts.subtle ? { isSubtle: true } : {}),
    }],
  };
}

/** The Teams message of `m`, as the JSON body of a Workflows webhook POST. */
export function teamsBody(m: Message): string {
  const body: Record<string, unknown>[] = [
    { ...runs(fit(m.title, TEAMS.titleMax), { bold: true }) },
  ];
  if (m.note) body.push(runs(m.note));
  const line = [m.number !== undefined ? `#${m.number}` : "", m.status ?? "", m.at]
    .filter(Boolean).join(" · ");
  body.push(runs(line, { subtle: true }));
  const card = {
    $schema: "http://adaptivecards.io/schemas/adaptive-card.json",
    type: "AdaptiveCard",
    version: "1.4",
    body,
    actions: [{ type: "Action.OpenUrl", title: m.linkLabel, url: m.link }],
    msteams: { width: "Full" },
  };
  const wrap = () =>
    JSON.stringify({
      type: "message",
      attachments: [{
        contentType: "application/vnd.microsoft.card.adaptive",
        contentUrl: null,
        content: card,
      }],
    });
  let size = utf8.encode(wrap()).length + 200;
  let shown = 0;
  for (const f of m.fields.slice(0, TEAMS.fieldsShown)) {
    const field = {
      type: "Container",
      spacing: "Small",
      items: [
        runs(fit(f.label, TEAMS.labelMax), { bold: true }),
        runs(fit(f.value || "—", TEAMS.valueMax)),
      ],
    };
    const cost = utf8.encode(JSON.stringify(field)).length + 1;
    if (size + cost > TEAMS.bodyMaxBytes) break;
    body.push(field);
    size += cost;
    shown++;
  }
  const more = moreFields(m.fields.length - shown);
  if (more) body.push(runs(more, { subtle: true }));
  return wrap();
}

/**
 * What the workflow's answer means: 2xx (202 Accepted) delivered; a rate limit (429, or 503 with
 * `Retry-After`) waits its `Retry-After`; 401, 403, 404 and 410 (the workflow deleted, turned off or its URL changed)
 * disable; 400 (this message refused) fails without retries; the rest is retried.
 */
export function teamsAnswer(r: PostResult, now: number): Answer {
  if (is2xx(r.status)) return { kind: "delivered" };
  const limited = rateLimitOf(r, now);
  if (limited) return limited;
  if ([401, 403, 404, 410].includes(r.status)) {
    return {
      kind: "disable",
      reason: `The Teams workflow answered ${r.status} ${
        quote(r.body)
      }: it was deleted or turned off, or its URL changed.`,
    };
  }
  if (r.status === 400) {
    return { kind: "failed", why: `The Teams workflow refused the message: ${quote(r.body)}` };
  }
  return { kind: "retry" };
}
