/**
 * A queue worker process for the queue-fault scenario: the real `dispatch` behind a
 * probe that records every delivery (a scoring job by its first submission id), and every
 * submission a verdict commit scored (in that commit). `hang` mode never finishes a job (so a kill finds
 * it in flight); `work` mode runs it and records completion.
 * Usage: deno run -A bench/soak/queue_child.ts <kv-path> hang|work
 * @module
 */
import { loadConfig } from "@/lib/config.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { buildDeps } from "@/lib/runtime.ts";
import { countingVerdicts, probeKey } from "./probe.ts";
import { SOAK_SECRET, soakEnv } from "./process.ts";

/** The second opinion's settings the parent passed (the scoring scenario's), if any. */
function secondOpinionEnv(): Record<string, string> {
  const key = Deno.env.get("AKISMET_KEY");
  const url = Deno.env.get("AKISMET_URL");
  return key && url ? { AKISMET_KEY: key, AKISMET_URL: url } : {};
}

if (import.meta.main) {
  const [kvPath, mode] = Deno.args;
  const kv = await Deno.openKv(kvPath);
  // Every verdict commit also counts, atomically, each submission it scored.
  const deps = await buildDeps(
    countingVerdicts(kv),
    loadConfig({ ...soakEnv(kvPath, 8000, "/tmp"), SECRET: SOAK_SECRET, ...secondOpinionEnv() }),
  );
  kv.listenQueue(async (msg) => {
    const m = msg as { path?: string; ids?: string[] };
    const id = String(m.ids?.[0] ?? m.path);
    await kv.atomic().sum(probeKey("deliveries", id), 1n).commit();
    if (mode === "hang") await new Promise(() => {});
    await dispatch(deps, msg);
    await kv.set(probeKey("done", id), true);
  });
}
