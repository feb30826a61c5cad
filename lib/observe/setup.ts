/**
 * What the composition root sets up for operations before anything logs: the log format,
 * the configured secrets no line may contain, and Formwell's spans (with `OTEL_DENO`).
 * @module
 */
import type { Config } from "@/lib/config.ts";
import { neverLog, setLogFormat } from "./log.ts";
import { enableTraces } from "./trace.ts";

/** Applies `LOG_FORMAT`, registers every configured secret with the logger, enables spans. */
export function startObserving(config: Config): void {
  setLogFormat(config.ops.logFormat);
  if (config.ops.traces) enableTraces();
  const smtpPassword = config.notify.smtpUrl ? new URL(config.notify.smtpUrl).password : "";
  neverLog(
    config.secret,
    config.admin.password,
    config.s3.secretAccessKey,
    config.ops.metricsToken,
    smtpPassword && decodeURIComponent(smtpPassword),
    smtpPassword,
  );
}
