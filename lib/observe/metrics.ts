/**
 * Prometheus metrics, kept only when `METRICS_TOKEN` is set (`deps.metrics`). Each Deps has
 * its own prom-client Registry. Hot-path counts go to plain Maps keyed by their label
 * values (a string key, no label object) and reach prom-client when scraped; gauges that
 * read KV (the job backlog) are read at scrape time. Names: docs/operations.md.
 * @module
 */
import { Counter, Gauge, Histogram, Registry } from "prom-client";
import type { Backlog, MetricsPort } from "./types.ts";

/** HTTP request duration buckets (seconds). */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
/** KV commit duration buckets (seconds). */
const COMMIT_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1];
/** Buckets of the time from a submission's storing to its final verdict (seconds). */
const VERDICT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
/** Label separator inside Map keys (never in a route pattern or a status). */
const SEP = "\u0000";

/** A counter whose hot path is `Map` arithmetic; prom-client sees the totals at scrape. */
class CountMap {
  readonly counts = new Map<string, number>();

  constructor(registry: Registry, name: string, help: string, labelNames: string[]) {
    const counts = this.counts;
    new Counter({
      name,
      help,
      labelNames,
      registers: [registry],
      collect() {
        this.reset();
        for (const [key, n] of counts) {
          const values = key.split(SEP);
          const labels: Record<string, string> = {};
          labelNames.forEach((l, i) => (labels[l] = values[i]));
          this.inc(labels, n);
        }
      },
    });
  }

  add(key: string, n = 1): void {
    this.counts.set(key, (this.counts.get(key) ?? 0) + n);
  }
}

/** A route's request counts by status, and its label object (made once, reused). */
interface RouteCounts {
  labels: { route: string };
  byStatus: Map<number, number>;
}

/** Every metric of one process; hot-path methods are a Map update or a histogram observe. */
export class Metrics implements MetricsPort {
  readonly registry = new Registry();
  #routes = new Map<string, RouteCounts>();
  #limited: CountMap;
  #submissions: CountMap;
  #verdicts: CountMap;
  #webhooks: CountMap;
  #emails: CountMap;
  #jobs: CountMap;
  #duration: Histogram<"route">;
  #commit: Histogram<"kind">;
  #verdictDelay: Histogram;
  #kindLabels = new Map<string, { kind: string }>();

  /** `backlog` reads the job backlog (called once per scrape). */
  constructor(backlog: () => Promise<Backlog>) {
    const r = this.registry;
    const routes = this.#routes;
    new Counter({
      name: "formwell_http_requests_total",
      help: "HTTP requests answered, by route pattern and status code.",
      labelNames: ["route", "status"],
      registers: [r],
      collect() {
        this.reset();
        for (const [route, c] of routes) {
          for (const [status, n] of c.byStatus) this.inc({ route, status }, n);
        }
      },
    });
    this.#limited = new CountMap(
      r,
      "formwell_rate_limited_total",
      "Requests refused with 429 by a rate limit, by route pattern.",
      ["route"],
    );
    this.#submissions = new CountMap(
      r,
      "formwell_submissions_total",
      "Submissions stored, by their status when stored (completed, suspicious, spam).",
      ["status"],
    );
    this.#verdicts = new CountMap(
      r,
      "formwell_spam_verdicts_total",
      "Final spam verdicts (by the storing commit, or the scoring job with Akismet), by status.",
      ["status"],
    );
    this.#webhooks = new CountMap(
      r,
      "formwell_webhook_deliveries_total",
      "Webhook delivery attempts, by result (delivered, retrying, failed, disabled).",
      ["result"],
    );
    this.#emails = new CountMap(
      r,
      "formwell_emails_total",
      "Notification emails, by result (accepted, failed, retrying, outbox, suppressed).",
      ["result"],
    );
    this.#jobs = new CountMap(
      r,
      "formwell_jobs_total",
      "Background job runs, by type and result (ok, error).",
      ["type", "result"],
    );
    this.#duration = new Histogram({
      name: "formwell_http_request_duration_seconds",
      help: "HTTP request duration until the response headers, by route pattern.",
      labelNames: ["route"],
      buckets: HTTP_BUCKETS,
      registers: [r],
    });
    this.#commit = new Histogram({
      name: "formwell_kv_commit_duration_seconds",
      help: "KV commit latency: submissions (the group commit), verdict (the scoring job's).",
      labelNames: ["kind"],
      buckets: COMMIT_BUCKETS,
      registers: [r],
    });
    this.#verdictDelay = new Histogram({
      name: "formwell_spam_verdict_delay_seconds",
      help: "Time from a submission's storing commit to its final verdict's commit.",
      buckets: VERDICT_BUCKETS,
      registers: [r],
    });
    backlogGauges(r, backlog);
  }

  /** Counts one answered request (`route` is its pattern) and its duration. */
  request(route: string, status: number, seconds: number): void {
    let c = this.#routes.get(route);
    if (!c) this.#routes.set(route, c = { labels: { route }, byStatus: new Map() });
    c.byStatus.set(status, (c.byStatus.get(status) ?? 0) + 1);
    if (status === 429) this.#limited.add(route);
    this.#duration.observe(c.labels, seconds);
  }

  /** Counts `n` stored submissions of `status`. */
  submissions(status: string, n = 1): void {
    this.#submissions.add(status, n);
  }

  /** Counts a final verdict and observes its delay since the storing commit. */
  verdict(status: string, seconds: number): void {
    this.#verdicts.add(status);
    this.#verdictDelay.observe(seconds);
  }

  /** Counts a webhook delivery attempt's result. */
  webhook(result: string): void {
    this.#webhooks.add(result);
  }

  /** Counts an email's result. */
  email(result: string): void {
    this.#emails.add(result);
  }

  /** Counts a job run. */
  job(type: string, ok: boolean): void {
    this.#jobs.add(type + SEP + (ok ? "ok" : "error"));
  }

  /** Observes a KV commit's latency. */
  commit(kind: "submissions" | "verdict", seconds: number): void {
    let labels = this.#kindLabels.get(kind);
    if (!labels) this.#kindLabels.set(kind, labels = { kind });
    this.#commit.observe(labels, seconds);
  }

  /** The Prometheus text of every metric. */
  async text(): Promise<string> {
    return await this.registry.metrics();
  }

  /** The exposition's content type. */
  get contentType(): string {
    return this.registry.contentType;
  }
}

/** The backlog gauges, all from one KV read per scrape. */
function backlogGauges(registry: Registry, backlog: () => Promise<Backlog>): void {
  let current: Promise<Backlog> | null = null;
  const read = () => {
    // The gauges of one scrape share one read; the next scrape reads again.
    current ??= backlog().finally(() => setTimeout(() => (current = null), 0));
    return current;
  };
  const gauge = (name: string, help: string, pick: (b: Backlog) => number | null) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      async collect() {
        const v = pick(await read());
        this.reset();
        if (v !== null) this.set(v);
      },
    });
  gauge(
    "formwell_jobs_pending",
    "Background jobs not yet done (due, delayed retries and running).",
    (b) => b.pending,
  );
  gauge(
    "formwell_jobs_oldest_pending_age_seconds",
    "How long the oldest due job has waited past its due time (0: none waiting).",
    (b) => b.oldestDueAgeMs === null ? null : b.oldestDueAgeMs / 1000,
  );
  gauge(
    "formwell_jobs_undelivered",
    "Jobs that failed every attempt and were kept under undelivered_jobs.",
    (b) => b.undelivered,
  );
}
