/**
 * How the bench observes final verdicts: a metrics port (lib/observe/types.ts, passed to
 * `buildDeps` as an override) that keeps each verdict's delay since its storing commit and
 * hands everything on to the configured metrics, if any.
 * @module
 */
import type { MetricsPort } from "@/lib/observe/types.ts";

/**
 * A metrics port that pushes each final verdict's delay (milliseconds from the storing
 * commit to the verdict's) onto `into`, then counts as `configured` does (nothing without it).
 */
export function verdictRecorder(
  into: number[],
  configured: MetricsPort | undefined,
): MetricsPort {
  return {
    request: (route, status, seconds) => configured?.request(route, status, seconds),
    submissions: (status, n) => configured?.submissions(status, n),
    verdict: (status, seconds) => {
      into.push(seconds * 1000);
      configured?.verdict(status, seconds);
    },
    webhook: (result) => configured?.webhook(result),
    email: (result) => configured?.email(result),
    job: (type, ok) => configured?.job(type, ok),
    commit: (kind, seconds) => configured?.commit(kind, seconds),
    text: () => configured?.text() ?? Promise.resolve(""),
    contentType: configured?.contentType ?? "text/plain",
  };
}
