/**
 * `verifyWebhook` against the service's own signer (lib/notify/deliver.ts, npm
 * standardwebhooks): valid, rotated (two signatures), tampered, stale, missing headers.
 */
import assert from "node:assert/strict";
import { FormwellError, verifyWebhook } from "@/sdk/server.ts";
import { sameBytes } from "@/sdk/src/server/verify.ts";
import { signedHeaders } from "@/lib/notify/deliver.ts";
import { newSecret, type Webhook } from "@/lib/notify/webhooks.ts";

const NOW = Date.parse("2026-11-20T10:00:00Z");

function endpoint(secret: string, previous?: string): Webhook {
  return {
    id: "wh_1",
    workspace_id: "ws_1",
    mode: "live",
    format: "standard",
    url: "https://example.com/hook",
    events: ["submission.created"],
    forms: [],
    enabled: true,
    secret,
    previous_secret: previous
      ? { secret: previous, until: new Date(NOW + 3600_000).toISOString() }
      : null,
    failing_since: null,
    disabled_reason: null,
    created_at: "",
    updated_at: "",
  };
}

const body = JSON.stringify({
  type: "submission.created",
  timestamp: "2026-11-20T10:00:00.000Z",
  data: {
    form: { public_id: "fAbc", name: "Contact" },
    submission: { id: "sub_1" },
  },
});

async function rejectsWith(p: Promise<unknown>, code: string) {
  await assert.rejects(p, (e: FormwellError) => {
    assert.ok(e instanceof FormwellError);
    assert.equal(e.status, 400);
    assert.equal(e.code, code);
    return true;
  });
}

Deno.test("sdk verifyWebhook - deliveries signed by the service", async (t) => {
  const secret = newSecret();
  const headers = signedHeaders(endpoint(secret), "msg_1", body, NOW);

  await t.step(
    "a genuine delivery verifies and returns the event",
    async () => {
      const event = await verifyWebhook(new Headers(headers), body, secret, {
        now: NOW + 1000,
      });
      assert.equal(event.type, "submission.created");
      assert.equal(event.data.form.public_id, "fAbc");
      const bytes = new TextEncoder().encode(body);
      assert.equal(
        (await verifyWebhook(headers, bytes, secret, { now: NOW })).type,
        "submission.created",
      );
    },
  );

  await t.step("during a rotation either secret verifies", async () => {
    const next = newSecret();
    const both = signedHeaders(endpoint(next, secret), "msg_2", body, NOW);
    assert.equal(both["webhook-signature"].split(" ").length, 2);
    await verifyWebhook(both, body, secret, { now: NOW });
    await verifyWebhook(both, body, next, { now: NOW });
    await verifyWebhook(both, body, [newSecret(), next], { now: NOW });
  });

  await t.step("a changed body, id or secret does not", async () => {
    await rejectsWith(
      verifyWebhook(headers, body.replace("Contact", "Contacts"), secret, {
        now: NOW,
      }),
      "webhook_signature",
    );
    await rejectsWith(
      verifyWebhook({ ...headers, "webhook-id": "msg_9" }, body, secret, {
        now: NOW,
      }),
      "webhook_signature",
    );
    await rejectsWith(
      verifyWebhook(headers, body, newSecret(), { now: NOW }),
      "webhook_signature",
    );
    await rejectsWith(
      verifyWebhook(
        { ...headers, "webhook-signature": "v1,!!notbase64" },
        body,
        secret,
        {
          now: NOW,
        },
      ),
      "webhook_signature",
    );
  });

  await t.step("a timestamp more than 5 minutes off does not", async () => {
    await verifyWebhook(headers, body, secret, { now: NOW + 299_000 });
    await rejectsWith(
      verifyWebhook(headers, body, secret, { now: NOW + 301_000 }),
      "webhook_timestamp",
    );
    await rejectsWith(
      verifyWebhook(headers, body, secret, { now: NOW - 301_000 }),
      "webhook_timestamp",
    );
    await verifyWebhook(headers, body, secret, {
      now: NOW + 600_000,
      toleranceSec: 900,
    });
  });

  await t.step("missing headers are named", async () => {
    const { "webhook-id": _, ...rest } = headers;
    await rejectsWith(
      verifyWebhook(rest, body, secret, { now: NOW }),
      "webhook_headers_missing",
    );
  });
});

Deno.test("sdk verifyWebhook - the comparison is over every byte, whatever the lengths", () => {
  const a = new Uint8Array([1, 2, 3, 4]);
  assert.ok(sameBytes(a, new Uint8Array([1, 2, 3, 4])));
  assert.ok(!sameBytes(a, new Uint8Array([1, 2, 3, 5])));
  assert.ok(!sameBytes(a, new Uint8Array([1, 2, 3])));
  assert.ok(!sameBytes(a, new Uint8Array([1, 2, 3, 4, 0])));
  assert.ok(!sameBytes(a, new Uint8Array([])));
});
