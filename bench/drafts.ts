/**
 * The `draft save` row: 64 visitors each saving their own draft (`PUT .../drafts/<id>` with
 * its resume token) at 200 saves/s in all, while JSON submit runs beside them at its usual
 * offered rate. Latency is measured at the client, per save.
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { SIX_FIELDS, sixFieldData } from "./fixtures.ts";
import type { Row } from "./report.ts";
import type { WrkResult } from "./wrk.ts";

const VISITORS = 64;
const RATE = 200;

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] : NaN;
}

/** Measures draft saves for `seconds` while `beside()` runs; the row's result. */
export async function draftSaveRow(o: {
  deps: Deps;
  url: string;
  workspaceId: string;
  seconds: number;
  beside: () => Promise<unknown>;
}): Promise<Row> {
  const form = await createForm(o.deps, o.workspaceId, {
    name: "Bench drafts",
    fields: SIX_FIELDS,
    drafts: { enabled: true },
  });
  const base = `${o.url}/api/v1/forms/p/${form.id}/drafts`;
  const ipOf = (i: number) => `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`;
  const visitors = await Promise.all(
    Array.from({ length: VISITORS }, async (_, i) => {
      const res = await fetch(base, {
        method: "POST",
        headers: { "content-type": "application/json", "x-forwarded-for": ipOf(i) },
        body: JSON.stringify({ data: { name: "Ada" } }),
      });
      const d = await res.json() as { draft_id: string; resume_token: string };
      return { ip: ipOf(i), ...d };
    }),
  );
  const latencies: number[] = [];
  let failed = 0;
  const period = (VISITORS / RATE) * 1000;
  const end = performance.now() + o.seconds * 1000;
  const visit = async (v: typeof visitors[number], i: number) => {
    // Spread the visitors over one period, so the saves arrive evenly.
    let next = performance.now() + (i * period) / VISITORS;
    for (let n = 0; next < end; n++) {
      await new Promise((r) => setTimeout(r, Math.max(0, next - performance.now())));
      const t0 = performance.now();
      const res = await fetch(`${base}/${v.draft_id}`, {
        method: "PUT",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${v.resume_token}`,
          "x-forwarded-for": v.ip,
        },
        body: JSON.stringify({ data: sixFieldData(`${i}-${n}`), step: 1 }),
      });
      await res.body?.cancel();
      latencies.push(performance.now() - t0);
      if (!res.ok) failed++;
      next += period;
    }
  };
  const started = performance.now();
  await Promise.all([o.beside(), ...visitors.map(visit)]);
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const result: WrkResult = {
    requests: latencies.length,
    non2xx: failed,
    socketErrors: 0,
    seconds,
    rps: latencies.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
  };
  return { name: `draft save, ${RATE}/s from ${VISITORS} visitors beside JSON submit`, result };
}
