import assert from "node:assert/strict";
import {
  CONTACT_FORM,
  contactData,
  makeForm,
  makeKey,
  makeWorkspace,
  postJson,
  testEnv,
} from "@/tests/helpers.ts";
import { dispatch } from "@/lib/jobs/mod.ts";
import { keys } from "@/lib/kv/keys.ts";
import { BACKLOG_COUNT_MAX } from "@/lib/observe/backlog.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { notifySubmission } from "@/lib/notify/mod.ts";
import { receiver, runJobs, smtp, submissionOf, waitFor } from "@/tests/lib/notify/_support.ts";

const TOKEN = "metrics-token-0123456789";

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, line: string): number | undefined {
  const found = text.split("\n").find((l) => l.startsWith(`${line} `));
  return found === undefined ? undefined : Number(found.slice(line.length + 1));
}

async function scrape(env: Awaited<ReturnType<typeof testEnv>>): Promise<string> {
  const res = await env.request("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
  assert.equal(res.status, 200);
  assert.match(res.headers.get("content-type") ?? "", /^text\/plain; version=0\.0\.4/);
  return await res.text();
}

Deno.test("metrics - /metrics is 404 without METRICS_TOKEN, and without the right bearer", async () => {
  const off = await testEnv();
  try {
    assert.equal(off.deps.metrics, undefined);
    const res = await off.request("/metrics", { headers: { Authorization: `Bearer ${TOKEN}` } });
    assert.equal(res.status, 404);
    assert.equal((await res.json()).code, "not_found");
  } finally {
    off.close();
  }
  const on = await testEnv({ METRICS_TOKEN: TOKEN });
  try {
    for (const auth of [undefined, "Bearer wrong-token-0123456789", `Basic ${TOKEN}`, TOKEN]) {
      const res = await on.request("/metrics", { headers: auth ? { Authorization: auth } : {} });
      assert.equal(res.status, 404, String(auth));
      await res.body?.cancel();
    }
    assert.match(await scrape(on), /# TYPE formwell_http_requests_total counter/);
  } finally {
    on.close();
  }
});

Deno.test("metrics - requests, submissions, verdicts and jobs are counted", async () => {
  const env = await testEnv({ METRICS_TOKEN: TOKEN });
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const key = await makeKey(env.deps, ws);
    env.deps.jobs.start((msg, ctx) => dispatch(env.deps, msg, ctx));
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(i), {
        Authorization: `Bearer ${key}`,
      });
      assert.equal(res.status, 201);
      ids.push((await res.json()).submission_id);
    }
    const bad = await postJson(env, `/api/v1/submit/p/${form.id}`, "{", {
      Authorization: `Bearer ${key}`,
    });
    assert.equal(bad.status, 400);
    await bad.body?.cancel();
    // A job (a second delivery of a scoring job: it finds them scored) run before reading.
    const op = env.deps.kv.atomic();
    env.deps.jobs.enqueue(op, {
      type: "score_batch",
      form_id: form.id,
      workspace_id: form.workspace_id,
      mode: "live",
      ids,
    });
    assert.ok((await op.commit()).ok);
    let text = "";
    for (let i = 0; i < 100; i++) {
      text = await scrape(env);
      if (sample(text, 'formwell_jobs_total{type="score_batch",result="ok"}') === 1) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    const submitRoute = text.match(/formwell_http_requests_total\{route="([^"]*submit[^"]*)"/)?.[1];
    assert.ok(submitRoute, text);
    assert.match(submitRoute, /:/, "a pattern, not a path");
    assert.ok(!submitRoute.includes(form.id));
    assert.equal(
      sample(text, `formwell_http_requests_total{route="${submitRoute}",status="201"}`),
      3,
    );
    assert.equal(
      sample(text, `formwell_http_requests_total{route="${submitRoute}",status="400"}`),
      1,
    );
    assert.equal(
      sample(text, `formwell_http_request_duration_seconds_count{route="${submitRoute}"}`),
      4,
    );
    assert.equal(sample(text, 'formwell_submissions_total{status="completed"}'), 3);
    // The storing commits gave the final verdicts.
    assert.equal(sample(text, 'formwell_spam_verdicts_total{status="completed"}'), 3);
    assert.equal(sample(text, "formwell_spam_verdict_delay_seconds_count"), 3);
    assert.equal(sample(text, 'formwell_jobs_total{type="score_batch",result="ok"}'), 1);
    assert.ok(
      (sample(text, 'formwell_kv_commit_duration_seconds_count{kind="submissions"}') ?? 0) >= 1,
    );
  } finally {
    await env.deps.jobs.stop();
    env.close();
  }
});

Deno.test("metrics - 1,000 distinct ids make one route label", async () => {
  const env = await testEnv({ METRICS_TOKEN: TOKEN, RATE_LIMITS: '{"schema":100000}' });
  try {
    for (let i = 0; i < 1000; i++) {
      const res = await env.request(`/api/v1/forms/p/frm_${String(i).padStart(26, "0")}`);
      await res.body?.cancel();
    }
    const text = await scrape(env);
    const lines = text.split("\n").filter((l) => l.startsWith("formwell_http_requests_total{"));
    const routes = new Set(lines.map((l) => l.match(/route="([^"]*)"/)![1]));
    // The 1,000 ids and the scrape itself (not yet counted while it answers).
    assert.equal(routes.size, 1, [...routes].join(", "));
    const [route] = routes;
    assert.equal(route, "/api/v1/forms/p/:id");
    const total = lines.reduce((n, l) => n + Number(l.split(" ").pop()), 0);
    assert.equal(total, 1000);
    // Unknown paths share one label too.
    for (let i = 0; i < 20; i++) await (await env.request(`/no/such/${i}`)).body?.cancel();
    const after = await scrape(env);
    assert.equal(sample(after, 'formwell_http_requests_total{route="unmatched",status="404"}'), 20);
  } finally {
    env.close();
  }
});

Deno.test("metrics - two apps keep their own registries", async () => {
  const a = await testEnv({ METRICS_TOKEN: TOKEN });
  const b = await testEnv({ METRICS_TOKEN: TOKEN });
  try {
    for (let i = 0; i < 3; i++) await (await a.request("/healthz")).body?.cancel();
    await (await b.request("/healthz")).body?.cancel();
    assert.equal(
      sample(await scrape(a), 'formwell_http_requests_total{route="/healthz",status="200"}'),
      3,
    );
    assert.equal(
      sample(await scrape(b), 'formwell_http_requests_total{route="/healthz",status="200"}'),
      1,
    );
  } finally {
    a.close();
    b.close();
  }
});

Deno.test("metrics - job backlog gauges, JOBS=table", async () => {
  const env = await testEnv({ METRICS_TOKEN: TOKEN, JOBS: "table" });
  try {
    const now = Date.now();
    const op = env.deps.kv.atomic();
    // Two overdue by 60 s and 30 s, one due in an hour (not yet waiting), one undelivered.
    const job = { type: "cleanup_upload", path: "x" };
    op.set(keys.jobDue(now - 60_000, "job_a"), { id: "job_a", job, attempts: 0 });
    op.set(keys.jobDue(now - 30_000, "job_b"), { id: "job_b", job, attempts: 0 });
    op.set(keys.jobDue(now + 3_600_000, "job_c"), { id: "job_c", job, attempts: 0 });
    op.set(keys.undelivered("job_d"), job);
    assert.ok((await op.commit()).ok);
    const text = await scrape(env);
    assert.equal(sample(text, "formwell_jobs_pending"), 3);
    assert.equal(sample(text, "formwell_jobs_undelivered"), 1);
    const age = sample(text, "formwell_jobs_oldest_pending_age_seconds")!;
    assert.ok(age >= 60 && age < 90, String(age));
    assert.ok(BACKLOG_COUNT_MAX >= 1000);
  } finally {
    env.close();
  }
});

Deno.test("metrics - job backlog gauges, JOBS=queue on a KV file", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-metrics-" });
  // The service's clock runs two hours ahead of KV's: a job KV holds for one hour is then
  // seen as waiting for an hour.
  const ahead = 2 * 3_600_000;
  const env = await testEnv(
    { METRICS_TOKEN: TOKEN, JOBS: "queue", KV_PATH: `${dir}/kv.sqlite` },
    { now: () => Date.now() + ahead },
  );
  try {
    const empty = await scrape(env);
    assert.equal(sample(empty, "formwell_jobs_pending"), 0, empty);
    assert.equal(sample(empty, "formwell_jobs_oldest_pending_age_seconds"), 0);
    const op = env.deps.kv.atomic();
    // Not started: the queue keeps them. Delayed ones are pending but not yet waiting.
    env.deps.jobs.enqueue(op, { type: "cleanup_upload", path: "a" }, { delay: 3_600_000 });
    env.deps.jobs.enqueue(op, { type: "cleanup_upload", path: "b" }, { delay: 3_600_000 });
    assert.ok((await op.commit()).ok);
    // Read over a second SQLite connection: the commit shows there once KV's WAL has it.
    let text = "";
    for (let i = 0; i < 100; i++) {
      text = await scrape(env);
      if (sample(text, "formwell_jobs_pending") === 2) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(sample(text, "formwell_jobs_pending"), 2);
    const age = sample(text, "formwell_jobs_oldest_pending_age_seconds")!;
    assert.ok(age > 3590 && age < 3700, String(age));
    assert.equal(sample(text, "formwell_jobs_undelivered"), 0);
  } finally {
    env.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("metrics - webhook and email results, rate-limit refusals", async () => {
  const mail = await smtp((n) => (n === 1 ? 550 : 0));
  const rx = receiver((n) => (n === 1 ? 503 : 200));
  const env = await testEnv({
    METRICS_TOKEN: TOKEN,
    WEBHOOK_ALLOW_PRIVATE: "1",
    WEBHOOK_RETRY_DELAYS: "30,30",
    SMTP_URL: mail.url,
    RATE_LIMITS: '{"schema":2}',
  });
  const jobs = runJobs(env.deps);
  try {
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws, {
      ...CONTACT_FORM,
      notifications: { emails: ["owner@example.com"] },
    } as never);
    await createWebhook(env.deps, ws.id, { url: rx.url }, { actor: "cli" });
    // Two emails: the first refused for good (550), the second accepted.
    for (const i of [1, 2]) {
      await notifySubmission(env.deps, {
        type: "submission.created",
        form,
        submission: submissionOf(form, { name: `P${i}`, email: `p${i}@example.com` }),
      });
    }
    let text = "";
    await waitFor("the webhook retried and both emails ended", async () => {
      text = await scrape(env);
      return sample(text, 'formwell_webhook_deliveries_total{result="delivered"}') === 2 &&
        (sample(text, 'formwell_emails_total{result="failed"}') ?? 0) +
              (sample(text, 'formwell_emails_total{result="accepted"}') ?? 0) === 2;
    });
    assert.equal(sample(text, 'formwell_webhook_deliveries_total{result="retrying"}'), 1);
    assert.equal(sample(text, 'formwell_emails_total{result="failed"}'), 1);
    assert.equal(sample(text, 'formwell_emails_total{result="accepted"}'), 1);
    for (let i = 0; i < 4; i++) {
      await (await env.request(`/api/v1/forms/p/${form.id}`, { ip: "198.51.100.9" })).body
        ?.cancel();
    }
    const limited = await scrape(env);
    assert.equal(sample(limited, 'formwell_rate_limited_total{route="/api/v1/forms/p/:id"}'), 2);
    assert.equal(
      sample(limited, 'formwell_http_requests_total{route="/api/v1/forms/p/:id",status="429"}'),
      2,
    );
  } finally {
    env.close();
    await jobs.catch(() => {});
    await rx.close();
    await mail.close();
  }
});
