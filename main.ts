/**
 * Composition root: config -> KV -> deps -> app. Starts the background jobs (KV queue or
 * job table, by `JOBS`), the periodic sweeps and the server. Runs unchanged on Deno Deploy.
 * @module
 */
import { ConfigError, loadConfig } from "@/lib/config.ts";
import { sweepUploads } from "@/lib/jobs/cleanup_upload.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { enqueueDraftSweep } from "@/lib/drafts/expiry.ts";
import { dailyRetentionSweep } from "@/lib/privacy/retention.ts";
import { buildDeps, openKv } from "@/lib/runtime.ts";
import { seedBanner, seedIfEmpty } from "@/lib/admin/seed.ts";
import { createApp } from "@/routes/mod.ts";
import { startObserving } from "@/lib/observe/setup.ts";
import { logger } from "@/lib/observe/log.ts";

if (import.meta.main) {
  let config;
  try {
    config = loadConfig(Deno.env.toObject());
  } catch (err) {
    if (err instanceof ConfigError) {
      console.error(err.message);
      Deno.exit(1);
    }
    throw err;
  }
  startObserving(config);
  const kv = await openKv(config);
  const deps = await buildDeps(kv, config);
  deps.jobs.start((msg, ctx) => dispatch(deps, msg, ctx));
  // Safety net for the delayed cleanup jobs (lost messages, restored backups).
  Deno.cron("formwell upload sweep", "23 * * * *", async () => {
    await sweepUploads(deps);
  });
  Deno.cron("formwell draft expiry", "*/10 * * * *", () => enqueueDraftSweep(deps));
  Deno.cron("formwell retention", "17 3 * * *", () => dailyRetentionSweep(deps).then(() => {}));
  if (config.seed) {
    const seeded = await seedIfEmpty(deps);
    if (seeded) logger.info(seedBanner(config.baseUrl, seeded));
  }
  const app = createApp(deps);
  Deno.serve({
    hostname: config.host,
    port: config.port,
    onListen: ({ hostname, port }) => {
      const host = hostname.includes(":") ? `[${hostname}]` : hostname;
      const every = hostname === "0.0.0.0" || hostname === "::" ? ", every interface" : "";
      logger.info(`Formwell listening on http://${host}:${port} (${config.env}${every})`);
    },
  }, (req, info) => app.fetch(req, info));
}
