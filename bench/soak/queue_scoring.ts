/**
 * Queue faults for scoring jobs: with a second opinion on (a local server answering as
 * Akismet does for ham), the storing commits leave final verdicts to the scoring job.
 * Submissions are stored (each group commit enqueueing its scoring job) by a process that
 * runs no jobs; a worker takes the jobs and is killed with
 * SIGKILL while holding them; after a restart every submission ends scored exactly once
 * (each verdict commit counts the submissions it scored, in the same commit).
 * @module
 */
import { type StoredVerdict, withVerdict } from "@/lib/submissions/records.ts";
import { loadConfig } from "@/lib/config.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { keys } from "@/lib/kv/keys.ts";
import { u64Value } from "@/lib/kv/kv.ts";
import { buildDeps } from "@/lib/runtime.ts";
import type { Submission } from "@/lib/schemas.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";
import { createApp } from "@/routes/mod.ts";
import { soakEnv } from "./process.ts";
import { killMidJobThenDrain } from "./queue_kill.ts";
import { probeKey, probePrefix } from "./probe.ts";

/** A second opinion that calls every message ham: Akismet's `false` answer, over HTTP. */
function secondOpinion(): { env: Record<string, string>; close: () => Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => new Response("false", { headers: { "content-type": "text/plain" } }),
  );
  return {
    env: { AKISMET_KEY: "soak-key", AKISMET_URL: `http://127.0.0.1:${server.addr.port}` },
    close: () => server.shutdown(),
  };
}

/** Stores `n` submissions through the real app; returns the form id and the jobs enqueued. */
async function store(kvPath: string, dir: string, n: number, env: Record<string, string>) {
  const kv = await Deno.openKv(kvPath);
  try {
    const deps = await buildDeps(
      kv,
      loadConfig({ ...soakEnv(kvPath, 8000, dir), TRUST_PROXY: "1", ...env }),
    );
    const ws = await createWorkspace(deps, { name: "scoring", plan: "business" });
    const form = await createForm(deps, ws.id, {
      name: "Scoring",
      fields: [{ id: "fld_msg", name: "message", type: "textarea" }],
    });
    const app = createApp(deps);
    await Promise.all(Array.from({ length: n }, async (_, i) => {
      const res = await app.request(`http://127.0.0.1/api/v1/submit/p/${form.id}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          "user-agent": "soak",
          "x-forwarded-for": `198.51.100.${i % 100}`,
        },
        body: JSON.stringify({ data: { message: `hello number ${i}` } }),
      });
      if (res.status !== 201) throw new Error(`submit answered ${res.status}`);
      await res.body?.cancel();
    }));
    return { formId: form.id, jobs: deps.writer.stats.commits };
  } finally {
    kv.close();
  }
}

/** Runs the scenario over `n` submissions; returns its figures. */
export async function scoringJobFaults(dir: string, n: number) {
  const kvPath = `${dir}/scoring.kv`;
  const opinion = secondOpinion();
  let stored: Awaited<ReturnType<typeof store>>;
  let drained: Awaited<ReturnType<typeof killMidJobThenDrain>>;
  try {
    stored = await store(kvPath, dir, n, opinion.env);
    drained = await killMidJobThenDrain(kvPath, opinion.env);
  } finally {
    await opinion.close();
  }
  const { formId, jobs } = stored;
  const { inFlight, left } = drained;
  const kv = await Deno.openKv(kvPath);
  let once = 0;
  let twice = 0;
  let unscored = 0;
  let redelivered = 0;
  try {
    for await (const e of kv.list<Submission>({ prefix: keys.submissions(formId) })) {
      const times = u64Value((await kv.get(probeKey("scored", e.value.id))).value);
      if (times === 1) once++;
      if (times > 1) twice++;
      const verdict =
        (await kv.get<StoredVerdict>(keys.submissionVerdict(formId, e.value.id))).value;
      if (!withVerdict(e.value, verdict).scored_at) unscored++;
    }
    for await (const e of kv.list({ prefix: probePrefix("deliveries") })) {
      if (u64Value(e.value) > 1) redelivered++;
    }
  } finally {
    kv.close();
  }
  return {
    scoring_submissions: n,
    scoring_jobs: jobs,
    scoring_in_flight_at_kill: inFlight,
    scoring_redelivered: redelivered,
    scoring_scored_once: once,
    scoring_scored_more_than_once: twice,
    scoring_unscored: unscored,
    scoring_left_in_queue: left,
  };
}
