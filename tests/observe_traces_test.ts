/**
 * A real `main.ts` with `OTEL_DENO=true` exporting to a local OTLP/HTTP receiver: one
 * submission's spans, from the submit request to the webhook delivery job, share one trace.
 */
import assert from "node:assert/strict";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { within } from "./processes.ts";
import { prepareKv, startLogged } from "./observe_support.ts";

/** A span as OTLP/JSON carries it (the fields read here). */
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
}

for (const jobs of ["queue", "table"]) {
  Deno.test(`traces - one trace from the submit to the webhook delivery, JOBS=${jobs}`, () =>
    oneTrace(jobs));
}

async function oneTrace(jobs: string): Promise<void> {
  // The OTLP/HTTP receiver: Deno exports protobuf unless told http/json, as here.
  const spans: OtlpSpan[] = [];
  const otlp = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, async (req) => {
    const path = new URL(req.url).pathname;
    const body = await req.text();
    if (path === "/v1/traces") {
      assert.match(req.headers.get("content-type") ?? "", /application\/json/);
      const data = JSON.parse(body);
      for (const rs of data.resourceSpans ?? []) {
        for (const ss of rs.scopeSpans ?? []) spans.push(...(ss.spans ?? []));
      }
    }
    return Response.json({});
  });
  const hooks: Headers[] = [];
  const receiver = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
    hooks.push(req.headers);
    return new Response("ok");
  });
  const p = await prepareKv(
    { name: "Contact", fields: [{ name: "name", type: "text", required: true }] } as never,
    async (deps, prepared) => {
      await createWebhook(deps, prepared.workspaceId, {
        url: `http://127.0.0.1:${receiver.addr.port}/hook`,
        forms: [prepared.form.id],
      }, { actor: "cli" });
    },
  );
  const server = await startLogged(p, {
    OTEL_DENO: "true",
    OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlp.addr.port}`,
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
    OTEL_SERVICE_NAME: "formwell-test",
    OTEL_BSP_SCHEDULE_DELAY: "200",
    WEBHOOK_ALLOW_PRIVATE: "1",
    JOBS: jobs,
  });
  try {
    const res = await fetch(`${server.url}/api/v1/submit/p/${p.form.id}`, {
      method: "POST",
      headers: { Authorization: `Bearer ${p.key}`, "Content-Type": "application/json" },
      body: JSON.stringify({ data: { name: "Ada" } }),
    });
    assert.equal(res.status, 201);
    await res.body?.cancel();
    const delivered = await within(30_000, () => Promise.resolve(hooks.length >= 1));
    assert.ok(delivered !== null, "the webhook never arrived");
    // Spans are exported in batches: wait until the delivery job's has come.
    const named = (name: string) => spans.filter((s) => s.name === name);
    const exported = await within(
      30_000,
      () => Promise.resolve(named("job deliver_webhook").length > 0 && named("submit").length > 0),
    );
    assert.ok(exported !== null, `spans seen: ${[...new Set(spans.map((s) => s.name))]}`);
    const [submit] = named("submit");
    const chain = [
      "submit.read",
      "submit.screen",
      "submit.admit",
      "submit.write",
      "submissions.group_commit",
      "job notify_created",
      "job deliver_webhook",
    ];
    for (const name of chain) {
      const found = named(name);
      assert.equal(found.length, 1, `${name}: ${found.length} spans`);
      assert.equal(found[0].traceId, submit.traceId, `${name} is in another trace`);
    }
    // The submit span is the request's child (Deno's own server span), and each job's
    // parent is a span of the same trace.
    const ids = new Set(spans.filter((s) => s.traceId === submit.traceId).map((s) => s.spanId));
    for (const name of chain) assert.ok(ids.has(named(name)[0].parentSpanId ?? ""), name);
    // The webhook request itself carried the trace on (Deno's fetch instrumentation).
    const traceparent = hooks[0].get("traceparent");
    if (traceparent) assert.equal(traceparent.split("-")[1], submit.traceId);
  } finally {
    await server.stop();
    await receiver.shutdown();
    await otlp.shutdown();
    await Deno.remove(p.dir, { recursive: true });
  }
}
