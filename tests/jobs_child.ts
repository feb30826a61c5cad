/**
 * A job-table worker process for the multi-process job tests and the soak: the real
 * `dispatch` on `JOBS=table` with a short lease. `hang` mode records each job it claims
 * (a probe record, bench/soak/probe.ts) and never finishes it, so a kill finds it holding the lease;
 * `work` mode runs jobs for real.
 * Usage: deno run -A tests/jobs_child.ts <kv-path> hang|work <lease-ms>
 * @module
 */
import { loadConfig } from "@/lib/config.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { TableJobs } from "@/lib/jobs/table_runner.ts";
import { probeKey } from "@/bench/soak/probe.ts";
import { buildDeps } from "@/lib/runtime.ts";

if (import.meta.main) {
  const [kvPath, mode, lease] = Deno.args;
  const kv = await Deno.openKv(kvPath);
  const config = loadConfig({
    KV_PATH: kvPath,
    JOBS: "table",
    SECRET: "test-secret-test-secret-test-secret-0123",
    FORMWELL_ENV: "test",
    LOCAL_STORAGE_DIR: await Deno.makeTempDir({ prefix: "formwell-jobs-child-" }),
  });
  const deps = await buildDeps(kv, config, {
    jobs: (kv) => new TableJobs(kv, { leaseMs: Number(lease), pollMs: 100 }),
  });
  deps.jobs.start(async (msg, ctx) => {
    const ids = (msg as { ids?: string[] }).ids ?? [String((msg as { path?: string }).path)];
    if (mode === "hang") {
      await kv.atomic().sum(probeKey("claimed", ids[0]), 1n).commit();
      await new Promise(() => {});
    }
    await dispatch(deps, msg, ctx);
  });
}
