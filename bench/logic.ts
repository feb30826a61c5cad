/**
 * The row `JSON submit, form with logic`: JSON submits to a ten-field form with five `when`
 * conditions and one `compute` (bench/fixtures.ts), in rounds alternating with JSON submit
 * on the same server, reported as the median round's ratio to JSON submit. Target: at
 * least 0.9 (the rules are compiled once per form version; a submit only evaluates them).
 * @module
 */
import type { Deps } from "@/lib/deps.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { LOGIC_FIELDS, logicFieldData } from "./fixtures.ts";
import type { MeasureRun } from "./metrics.ts";
import type { Row, Verdict } from "./report.ts";
import { combineRuns, median, type WrkRequest, type WrkResult } from "./wrk.ts";

/** The row's name, as RESULTS.md lists it (its ratio is to JSON submit, same rounds). */
export const LOGIC_ROW = "JSON submit, form with logic";

/** Measures the logic form against JSON submit (`json`: its request on the same server). */
export async function logicVsJson(o: {
  deps: Pick<Deps, "kv" | "now">;
  workspaceId: string;
  url: string;
  json: WrkRequest;
  rounds: number;
  seconds: number;
  warmSeconds: number;
  connections: number;
  run: MeasureRun;
}): Promise<{ row: Row; verdict: Verdict }> {
  const form = await createForm(o.deps, o.workspaceId, { name: "Logic", fields: LOGIC_FIELDS });
  const req: WrkRequest = {
    ...o.json,
    path: `/api/v1/submit/p/${form.id}`,
    body: JSON.stringify({ data: logicFieldData() }),
  };
  const opts = (tag: string, seconds = o.seconds) => ({
    seconds,
    connections: o.connections,
    tag,
  });
  await o.run(o.url, req, opts("lw", o.warmSeconds));
  const logicRuns: WrkResult[] = [];
  const jsonRuns: WrkResult[] = [];
  for (let i = 0; i < o.rounds; i++) {
    jsonRuns.push(await o.run(o.url, o.json, opts(`lj${i}`)));
    logicRuns.push(await o.run(o.url, req, opts(`ll${i}`)));
  }
  const ratio = median(logicRuns.map((r, i) => r.rps / jsonRuns[i].rps));
  return {
    row: {
      name: LOGIC_ROW,
      result: combineRuns(logicRuns),
      runs: logicRuns,
      ratio,
    },
    verdict: {
      target: `${LOGIC_ROW} >= 0.9 of JSON submit (same rounds)`,
      measured: `median of ${o.rounds} rounds ` +
        logicRuns.map((r, i) => `${r.rps.toFixed(0)}/${jsonRuns[i].rps.toFixed(0)}`).join(", ") +
        ` req/s = ${ratio.toFixed(3)}`,
      pass: ratio >= 0.9,
    },
  };
}
