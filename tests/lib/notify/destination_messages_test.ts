/**
 * The Slack, Discord and Teams renderers on hard inputs, each body checked against the
 * service's documented limits (the fakes' checks): many fields, long labels and values,
 * characters outside the BMP, empty values, a test message.
 */
import assert from "node:assert/strict";
import { discordBody } from "@/lib/notify/destinations/discord.ts";
import { fit, type Message } from "@/lib/notify/destinations/message.ts";
import { slackBody } from "@/lib/notify/destinations/slack.ts";
import { teamsBody } from "@/lib/notify/destinations/teams.ts";
import { problemsOf, type Service } from "./_fakes.ts";

/** A high surrogate not followed by a low one, or a low one not preceded by a high one. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Every string in a JSON value. */
function strings(v: unknown): string[] {
  if (typeof v === "string") return [v];
  if (v && typeof v === "object") return Object.values(v).flatMap(strings);
  return [];
}

const RENDER: Record<Service, (m: Message) => string> = {
  slack: slackBody,
  discord: discordBody,
  teams: teamsBody,
};

function message(
  fields: { label: string; value: string }[],
  title = "New submission #7 to Contact",
): Message {
  return {
    title,
    number: 7,
    status: "completed",
    at: "2026-11-27T12:00:00.123Z",
    fields,
    link: "https://forms.example.com/admin/forms/fAbc/submissions/sub_1",
    linkLabel: "View it in Formwell",
  };
}

const CASES: [string, Message][] = [
  [
    "200 short fields",
    message(Array.from({ length: 200 }, (_, i) => ({ label: `f${i}`, value: `v${i}` }))),
  ],
  [
    "long labels and values",
    message(Array.from({ length: 30 }, (_, i) => ({
      label: `${"L".repeat(400)}${i}`,
      value: `&<>*_~\`|[]()#@:`.repeat(400),
    }))),
  ],
  [
    "emoji everywhere",
    message(
      Array.from({ length: 12 }, () => ({ label: "😀".repeat(300), value: "😀".repeat(3000) })),
      "😀".repeat(500),
    ),
  ],
  ["empty values", message([{ label: "a", value: "" }, { label: "b", value: "" }])],
  ["a test message", {
    ...message([]),
    note: "This destination works.",
    number: undefined,
    status: undefined,
  }],
];

Deno.test("destination messages - every service takes every case", async (t) => {
  for (const [name, m] of CASES) {
    await t.step(name, () => {
      for (const service of Object.keys(RENDER) as Service[]) {
        const raw = RENDER[service](m);
        assert.deepEqual(problemsOf(service, raw), [], `${service}: ${name}`);
        for (const text of strings(JSON.parse(raw))) {
          assert.ok(!LONE_SURROGATE.test(text), `${service}: a character was cut in two`);
        }
      }
    });
  }
});

Deno.test("destination messages - fields left out are counted", () => {
  const m = CASES[0][1];
  assert.match(slackBody(m), /and 180 more fields/);
  assert.match(discordBody(m), /and 176 more fields/);
  assert.match(teamsBody(m), /and 170 more fields/);
});

Deno.test("destination messages - fit cuts on characters, never inside an escape", () => {
  const esc = (c: string) => (c === "&" ? "&amp;" : c);
  assert.equal(fit("abc", 3), "abc");
  assert.equal(fit("abcd", 3), "ab…");
  assert.equal(fit("a&b", 6, esc), "a…", "an escape that does not fit with the mark is left out");
  assert.equal(fit("a&b", 7, esc), "a&amp;b");
  assert.equal(fit("a&&", 6, esc), "a…");
  assert.equal(fit("😀😀😀", 5), "😀😀…");
});
