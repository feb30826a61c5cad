/**
 * Local fakes of Slack incoming webhooks, Discord execute-webhook and a Teams Workflows
 * webhook: real HTTP servers on 127.0.0.1 that check each request against the service's
 * documented shape and limits, refuse what the service refuses with its own error answer,
 * and otherwise answer as it does (Slack `200 ok`, Discord `204`, Teams `202`). A test may
 * script other answers (rate limits, permanent errors) per request.
 * @module
 */

/** A scripted answer. */
export interface FakeAnswer {
  status: number;
  body?: string;
  headers?: Record<string, string>;
}

/** One request a fake got. */
export interface FakeGot {
  at: number;
  headers: Record<string, string>;
  raw: string;
  body: Record<string, unknown>;
  /** What the fake found wrong with the shape (empty: valid). */
  problems: string[];
  answered: number;
}

type Check = (body: Record<string, unknown>, raw: string) => string[];

const len = (v: unknown) => (typeof v === "string" ? v.length : 0);
const isText = (v: unknown) => typeof v === "string" && v.length > 0;

/** Block Kit as Slack documents it for messages (the blocks this fake knows). */
function slackProblems(b: Record<string, unknown>): string[] {
  const p: string[] = [];
  const textObj = (t: unknown, max: number, where: string) => {
    const o = t as { type?: string; text?: string };
    if (!o || !["plain_text", "mrkdwn"].includes(o.type ?? "")) p.push(`${where}: text object`);
    else if (!isText(o.text) || len(o.text) > max) p.push(`${where}: text length ${len(o.text)}`);
  };
  if (!isText(b.text)) p.push("text: a fallback text is expected with blocks");
  if (len(b.text) > 40_000) p.push("text: over 40000");
  const blocks = b.blocks as Record<string, unknown>[] | undefined;
  if (!Array.isArray(blocks) || blocks.length === 0) return [...p, "blocks: missing"];
  if (blocks.length > 50) p.push("blocks: over 50");
  for (const [i, bl] of blocks.entries()) {
    const at = `blocks[${i}]`;
    if (bl.type === "header") {
      const t = bl.text as { type?: string };
      if (t?.type !== "plain_text") p.push(`${at}: header text must be plain_text`);
      textObj(bl.text, 150, at);
    } else if (bl.type === "section") {
      if (!bl.text && !bl.fields) p.push(`${at}: section needs text or fields`);
      if (bl.text) textObj(bl.text, 3000, at);
      if (bl.fields) {
        const f = bl.fields as unknown[];
        if (f.length > 10) p.push(`${at}: over 10 fields`);
        f.forEach((x, j) => textObj(x, 2000, `${at}.fields[${j}]`));
      }
    } else if (bl.type === "context") {
      const els = bl.elements as unknown[];
      if (!Array.isArray(els) || els.length === 0 || els.length > 10) {
        p.push(`${at}: context elements 1..10`);
      } else els.forEach((x, j) => textObj(x, 3000, `${at}.elements[${j}]`));
    } else if (bl.type !== "divider") p.push(`${at}: unknown block ${bl.type}`);
  }
  return p;
}

/** Discord's execute-webhook body and embed limits. */
function discordProblems(b: Record<string, unknown>): string[] {
  const p: string[] = [];
  if (len(b.content) > 2000) p.push("content: over 2000");
  if (b.username !== undefined && (len(b.username) < 1 || len(b.username) > 80)) {
    p.push("username: 1..80");
  }
  const embeds = (b.embeds ?? []) as Record<string, unknown>[];
  if (!isText(b.content) && embeds.length === 0) p.push("empty message");
  if (embeds.length > 10) p.push("embeds: over 10");
  let total = 0;
  for (const [i, e] of embeds.entries()) {
    const at = `embeds[${i}]`;
    if (len(e.title) > 256) p.push(`${at}.title: over 256`);
    if (len(e.description) > 4096) p.push(`${at}.description: over 4096`);
    const footer = (e.footer ?? {}) as { text?: string };
    if (len(footer.text) > 2048) p.push(`${at}.footer: over 2048`);
    const fields = (e.fields ?? []) as { name?: string; value?: string }[];
    if (fields.length > 25) p.push(`${at}.fields: over 25`);
    for (const [j, f] of fields.entries()) {
      if (!isText(f.name) || len(f.name) > 256) p.push(`${at}.fields[${j}].name: 1..256`);
      if (!isText(f.value) || len(f.value) > 1024) p.push(`${at}.fields[${j}].value: 1..1024`);
      total += len(f.name) + len(f.value);
    }
    if (e.timestamp !== undefined && Number.isNaN(Date.parse(String(e.timestamp)))) {
      p.push(`${at}.timestamp: ISO8601`);
    }
    total += len(e.title) + len(e.description) + len(footer.text);
  }
  if (total > 6000) p.push(`embeds: ${total} characters, over 6000`);
  return p;
}

/** A Teams Workflows "post to a channel when a webhook request is received" body. */
function teamsProblems(b: Record<string, unknown>, raw: string): string[] {
  const p: string[] = [];
  if (new TextEncoder().encode(raw).length > 28 * 1024) p.push("message over 28 KB");
  if (b.type !== "message") p.push("type must be message");
  const atts = b.attachments as Record<string, unknown>[] | undefined;
  if (!Array.isArray(atts) || atts.length === 0) return [...p, "attachments: missing"];
  for (const [i, a] of atts.entries()) {
    if (a.contentType !== "application/vnd.microsoft.card.adaptive") {
      p.push(`attachments[${i}].contentType`);
    }
    const c = a.content as Record<string, unknown> | undefined;
    if (c?.type !== "AdaptiveCard") p.push(`attachments[${i}].content.type`);
    if (typeof c?.version !== "string") p.push(`attachments[${i}].content.version`);
    if (!Array.isArray(c?.body)) p.push(`attachments[${i}].content.body`);
  }
  return p;
}

/** The service a fake speaks: its URL path, shape check, success and refusal answers. */
const SERVICES = {
  slack: {
    path: "/services/T0FAKE0001/B0FAKE0001/zQ8fakeSlackTokenW1x2",
    check: slackProblems as Check,
    ok: { status: 200, body: "ok", headers: { "content-type": "text/html" } },
    refuse: { status: 400, body: "invalid_payload", headers: { "content-type": "text/html" } },
  },
  discord: {
    path: "/api/webhooks/112233445566778899/fakeDiscordToken-AbCdEfGh9876",
    check: discordProblems as Check,
    ok: { status: 204 },
    refuse: {
      status: 400,
      body: JSON.stringify({ message: "Invalid Form Body", code: 50035 }),
      headers: { "content-type": "application/json" },
    },
  },
  teams: {
    path:
      "/workflows/0a1b2c3d/triggers/manual/paths/invoke?api-version=1&sp=%2Ftriggers%2Fmanual%2Frun&sv=1.0&sig=fakeTeamsSigQ7r8",
    check: teamsProblems,
    ok: { status: 202 },
    refuse: {
      status: 400,
      body: JSON.stringify({ error: { code: "InvalidRequestContent", message: "bad card" } }),
      headers: { "content-type": "application/json" },
    },
  },
} as const;

/** A service a fake speaks. */
export type Service = keyof typeof SERVICES;

/** What `service` would find wrong with the body `raw` (empty: it would take it). */
export function problemsOf(service: Service, raw: string): string[] {
  return SERVICES[service].check(JSON.parse(raw), raw);
}

/**
 * A fake of `service` on 127.0.0.1. `script(n)` may answer the n-th request (1-based)
 * otherwise than the service's success; a request of the wrong shape gets its refusal.
 */
export function fakeService(
  service: Service,
  script: (n: number) => FakeAnswer | null = () => null,
) {
  const s = SERVICES[service];
  const got: FakeGot[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const raw = await req.text();
    const url = new URL(req.url);
    let body: Record<string, unknown> = {};
    const problems: string[] = [];
    if (req.method !== "POST") problems.push("method");
    if (`${url.pathname}${url.search}` !== s.path) problems.push("path");
    if (!(req.headers.get("content-type") ?? "").startsWith("application/json")) {
      problems.push("content-type");
    }
    try {
      body = JSON.parse(raw);
      problems.push(...s.check(body, raw));
    } catch {
      problems.push("not JSON");
    }
    const answer: FakeAnswer = problems.length ? s.refuse : script(got.length + 1) ?? s.ok;
    got.push({
      at: Date.now(),
      headers: Object.fromEntries(req.headers),
      raw,
      body,
      problems,
      answered: answer.status,
    });
    return new Response(answer.status === 204 ? null : answer.body ?? "", {
      status: answer.status,
      headers: answer.headers,
    });
  });
  const base = `http://127.0.0.1:${server.addr.port}`;
  return {
    got,
    url: `${base}${s.path}`,
    secretTail: s.path.slice(-4),
    close: () => server.shutdown(),
  };
}
