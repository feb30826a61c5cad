/**
 * The admin delivery log reads by event: a real receiver fails, then accepts; another never
 * accepts. Each event is one card with its final state (a delivered event shows no
 * "retrying" badge, even after a failed resend), its event and submission ids, and the next
 * attempt's time while a retry is due; a disabled endpoint's event says it is not retried.
 */
import assert from "node:assert/strict";
import { listDeliveries } from "@/lib/notify/deliver.ts";
import { resendDelivery } from "@/lib/notify/manual.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import { createWebhook, updateWebhook } from "@/lib/notify/webhook_edits.ts";
import { page, setup, signIn } from "@/tests/admin_support.ts";
import { testEnv } from "@/tests/helpers.ts";
import { receiver, runJobs, submissionOf, waitFor } from "@/tests/lib/notify/_support.ts";

const CLI = { actor: "cli" };
/** The first retry comes at once; the second is due in 10 minutes (never within the test). */
const RETRY_LATER_MS = 600_000;

/** The cards of the page: each event's section HTML. */
function cards(html: string): string[] {
  return [...html.matchAll(/<article class="card delivery-event"[\s\S]*?<\/article>/g)].map((m) =>
    m[0]
  );
}

Deno.test("webhook delivery log - grouped by event, final state, ids, next attempt", async (t) => {
  const env = await testEnv({
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_RETRY_DELAYS: `20,${RETRY_LATER_MS}`,
  });
  // Down once, then up; every later request (a resend) fails.
  const flaky = receiver((n) => (n === 1 ? 503 : n === 2 ? 200 : 500));
  const down = receiver(() => 503);
  const jobs = runJobs(env.deps);
  try {
    const { ws, form } = await setup(env);
    const cookie = await signIn(env, "owner@example.com");
    const a = await createWebhook(env.deps, ws.id, { url: flaky.url }, CLI);
    const b = await createWebhook(env.deps, ws.id, { url: down.url }, CLI);
    const sub = submissionOf(form, { name: "Ada", email: "ada@example.com" });
    const eventId = await notifySubmission(env.deps, {
      type: "submission.created",
      form,
      submission: sub,
    });
    assert.ok(eventId);
    await waitFor(
      "two attempts to each endpoint",
      async () =>
        (await listDeliveries(env.deps, a.id)).length === 2 &&
        (await listDeliveries(env.deps, b.id)).length === 2,
    );

    await t.step("a delivered event: one card, delivered, no retrying badge", async () => {
      const { res, html } = await page(env, cookie, `/admin/webhooks/${a.id}`);
      assert.equal(res.status, 200);
      const [card, ...more] = cards(html);
      assert.equal(more.length, 0, "two attempts of one event are one card");
      assert.match(card, /<span class="badge completed">delivered<\/span>/);
      assert.doesNotMatch(html, /badge suspicious/);
      assert.ok(card.includes(eventId), "the event id");
      assert.ok(card.includes(sub.id), "the submission id");
      assert.doesNotMatch(card, /Next attempt/);
      assert.equal(card.match(/<tr/g)?.length, 3, "a head row and two attempts");
    });

    await t.step("a failed resend of a delivered event leaves it delivered", async () => {
      const log = await listDeliveries(env.deps, a.id);
      await resendDelivery(env.deps, ws.id, a.id, log[0].id);
      await waitFor(
        "the resend logged",
        async () => (await listDeliveries(env.deps, a.id)).length === 3,
      );
      const { html } = await page(env, cookie, `/admin/webhooks/${a.id}`);
      const [card] = cards(html);
      assert.match(card, /badge completed">delivered</);
      assert.match(card, /500/);
      assert.doesNotMatch(html, /badge suspicious|badge spam/);
    });

    await t.step("an event still failing: retrying, with its next attempt's time", async () => {
      const [last] = await listDeliveries(env.deps, b.id);
      assert.equal(last.outcome, "retrying");
      const due = new Date(Date.parse(last.at) + RETRY_LATER_MS).toISOString();
      assert.equal(last.next_attempt_at, due);
      assert.equal(last.submission_id, sub.id);
      const { html } = await page(env, cookie, `/admin/webhooks/${b.id}`);
      const [card] = cards(html);
      assert.match(card, /badge suspicious">retrying</);
      assert.match(card, /<dt>Next attempt<\/dt>/);
      assert.ok(card.includes(`<time datetime="${due}">`), "the next attempt's time");
    });

    await t.step("its endpoint disabled: not delivered, no next attempt", async () => {
      await updateWebhook(env.deps, ws.id, b.id, { enabled: false }, CLI);
      const { html } = await page(env, cookie, `/admin/webhooks/${b.id}`);
      const [card] = cards(html);
      assert.match(card, /not delivered: endpoint disabled/);
      assert.doesNotMatch(card, /Next attempt|badge suspicious/);
    });
  } finally {
    env.close();
    await jobs;
    await flaky.close();
    await down.close();
  }
});
