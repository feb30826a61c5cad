/**
 * The `forms API create/update` rows: one client with an `admin` key creates forms through
 * `POST /api/v1/server/forms` (each with its own `key`), then changes each one through
 * `PATCH /api/v1/server/forms/key:<slug>` (a new label and a field made required, so the
 * schema version rises), one call at a time. Latency is measured at the client, per call;
 * the target is p50 under 20 ms for both.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { createApiKey } from "@/lib/keys/api_keys.ts";
import type { FormDefinition } from "@/lib/schemas.ts";
import { SIX_FIELDS } from "./fixtures.ts";
import type { Row, Verdict } from "./report.ts";
import type { WrkResult } from "./wrk.ts";

/** The p50 target of both rows, in ms. */
export const FORMS_API_P50_MS = 20;

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;
}

/** Calls `call` `count` times one after the other; the latencies and failures as a result. */
async function timed(count: number, call: (i: number) => Promise<Response>): Promise<WrkResult> {
  const latencies: number[] = [];
  let failed = 0;
  const started = performance.now();
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const res = await call(i);
    await res.body?.cancel();
    latencies.push(performance.now() - t0);
    if (!res.ok) failed++;
  }
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: count,
    non2xx: failed,
    socketErrors: 0,
    seconds,
    rps: count / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
}

/** Measures `count` creates then `count` updates; the two rows and their verdict. */
export async function formsApiRows(o: {
  deps: Deps;
  url: string;
  workspaceId: string;
  count: number;
}): Promise<{ rows: Row[]; verdict: Verdict }> {
  const { key } = await createApiKey(o.deps, {
    workspaceId: o.workspaceId,
    name: "bench forms api",
    scopes: ["admin", "read"],
  });
  const headers = { "content-type": "application/json", authorization: `Bearer ${key}` };
  const run = `${Date.now().toString(36)}`;
  const slug = (i: number) => `bench-${run}-${i}`;
  const definition = (i: number): FormDefinition & { key: string } => ({
    key: slug(i),
    name: `Bench form ${i}`,
    fields: SIX_FIELDS,
    allowed_origins: ["https://example.com"],
  });
  const create = await timed(o.count, (i) =>
    fetch(`${o.url}/api/v1/server/forms`, {
      method: "POST",
      headers,
      body: JSON.stringify(definition(i)),
    }));
  const update = await timed(o.count, (i) =>
    fetch(`${o.url}/api/v1/server/forms/key:${slug(i)}`, {
      method: "PATCH",
      headers,
      body: JSON.stringify({
        fields: SIX_FIELDS.map((f, n) => n === 0 ? { ...f, label: `Name ${i}` } : f)
          .map((f) => f.name === "company" ? { ...f, required: true } : f),
      }),
    }));
  const rows: Row[] = [
    { name: `forms API create, one client (${o.count} forms)`, result: create },
    { name: `forms API update, one client (${o.count} forms)`, result: update },
  ];
  const clean = create.non2xx + update.non2xx === 0;
  return {
    rows,
    verdict: {
      target: `forms API create and update p50 < ${FORMS_API_P50_MS} ms`,
      measured: `create p50 ${create.p50Ms.toFixed(2)} ms, update p50 ` +
        `${update.p50Ms.toFixed(2)} ms (${create.non2xx + update.non2xx} non-2xx)`,
      pass: clean && create.p50Ms < FORMS_API_P50_MS && update.p50Ms < FORMS_API_P50_MS,
    },
  };
}
