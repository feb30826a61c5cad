import assert from "node:assert/strict";
import { prng } from "@/tests/prng.ts";
import { scoreSpam } from "@/lib/protection/score.ts";
import { spamInputOf } from "@/lib/protection/score_context.ts";
import { verdictFromFirst } from "@/lib/protection/verdict.ts";
import type { Form, Submission } from "@/lib/schemas.ts";

const CREATED = "2026-01-10T12:00:00.000Z";
const FORM = {
  id: "frm_x",
  workspace_id: "ws_x",
  updated_at: "2026-01-01T00:00:00.000Z",
  fields: [
    { name: "message", type: "textarea" },
    { name: "site", type: "url" },
  ],
} as unknown as Form;
// Content probabilities on and around every band edge of the scorer.
const PS = [0, 0.1, 0.29, 0.3, 0.5, 0.74, 0.75, 0.8, 0.9, 0.95, 0.997, 0.998, 1];

function randomSubmission(r: () => number): Submission {
  const links = Math.floor(r() * 7);
  const url = () => `https://spam${Math.floor(r() * 9)}.example/x`;
  const message = r() < 0.5
    ? Array.from({ length: links }, url).join(" ")
    : `Hello, a longer message here ${Array.from({ length: links }, url).join(" and ")}`;
  const viaKey = r() < 0.3;
  return {
    id: "sub_x",
    form_id: FORM.id,
    workspace_id: FORM.workspace_id,
    mode: "live",
    number: 1,
    fields: { message, site: r() < 0.5 ? url() : "" },
    metadata: {},
    status: "completed",
    created_at: CREATED,
    files: [],
    signals: {
      via_key: viaKey,
      user_agent: viaKey || r() < 0.9 ? "Mozilla/5.0" : undefined,
      fill_ms: r() < 0.5 ? Math.floor(r() * 6_000) : undefined,
      captcha: r() < 0.3 ? { provider: "recaptcha", score: Math.round(r() * 10) / 10 } : undefined,
      failures: Math.floor(r() * 4),
      recent: Math.floor(r() * 12),
      duplicate: r() < 0.3,
    },
  };
}

Deno.test("final verdict - built from the commit's first verdict, it equals scoring again", () => {
  const r = prng(32);
  let reused = 0;
  for (let i = 0; i < 3_000; i++) {
    const sub = randomSubmission(r);
    // What the submission's commit stored: the signals scored without the content.
    const first = scoreSpam(spamInputOf(FORM, sub));
    if (first.score > 0) {
      sub.spam = { score: first.score, reasons: first.reasons, scored_at: CREATED };
    }
    const content = { p: PS[Math.floor(r() * PS.length)], tokens: [] };
    const full = scoreSpam({ ...spamInputOf(FORM, sub), content });
    const built = verdictFromFirst(FORM, sub, content);
    if (built === null) continue;
    reused++;
    assert.deepEqual(built, full, JSON.stringify({ sub, content }));
  }
  // Most submissions take the single scoring; the rest are scored again.
  assert.ok(reused > 2_000, `${reused}`);
});

Deno.test("final verdict - scored again when the form changed around the commit", () => {
  const sub = randomSubmission(prng(1));
  const edited = { ...FORM, updated_at: "2026-01-10T11:59:30.000Z" };
  assert.equal(verdictFromFirst(edited, sub, { p: 0.5, tokens: [] }), null);
});
