/**
 * `deno task bench`: measures the ceiling and every row against a Formwell server in
 * production mode on an on-disk KV, with wrk as the load generator in a second process.
 * Prints one table, writes bench/RESULTS.md, and says PASS or FAIL per target.
 * Flags: `--quick` (short runs and a 10,000-submission list form, for checking the harness);
 * `--metrics` (adds JSON submit with `METRICS_TOKEN` set, in rounds with it unset).
 * `BENCH_SCALE=N` stores N submissions instead of 1,000,000 for the scale rows (bench/scale.ts),
 * `BENCH_SCALE_MINUTES=M` lets their load take M minutes instead of 10.
 * @module
 */
import { seedSubmissions } from "@/bench/seed.ts";
import { BENCH_ORIGIN, createFixtures, sixFieldData } from "./fixtures.ts";
import {
  cpuLines,
  cpuTotal,
  machineFacts,
  noiseWarning,
  type Row,
  textTable,
  type Verdict,
  verdictLines,
  writeResults,
} from "./report.ts";
import {
  BENCH_RATE_LIMITS,
  type BenchServer,
  commitCounter,
  countCommits,
  RssSampler,
  startBare,
  startFormwell,
  startReceiver,
} from "./server.ts";
import { createWebhook } from "@/lib/notify/webhook_edits.ts";
import { flushLatency } from "./disk.ts";
import { CpuMeter } from "./threads.ts";
import { combineRuns, ensureWrk, median, runWrk, type WrkRequest, type WrkResult } from "./wrk.ts";
import { ensureHey, type HeyRequest, runHey } from "./hey.ts";
import { metricsOnOff } from "./metrics.ts";
import { logicVsJson } from "./logic.ts";
import { draftSaveRow } from "./drafts.ts";
import { mcpListRow } from "./mcp.ts";
import { formsApiRows } from "./forms_api.ts";
import { scaleMinutes, scaleRows, scaleSize } from "./scale.ts";

const quick = Deno.args.includes("--quick");
const withMetrics = Deno.args.includes("--metrics");
const SECONDS = quick ? 3 : 10;
/**
 * The ceiling, the floor and JSON submit alternate in ROUNDS rounds of ROUND_SECONDS each, so
 * a burst of load from elsewhere on a shared machine hits all, not one; the ratio is the
 * median round's, so one round the host slowed for one of them does not decide it.
 */
const ROUNDS = 5;
const ROUND_SECONDS = quick ? 1 : 4;
const WARM_SECONDS = quick ? 1 : 2;
const LIST_SECONDS = quick ? 2 : 5;
const LIST_SIZE = quick ? 10_000 : 100_000;
const CONNECTIONS = 64;
/** The fixed offered load for the latency target: 64 hey workers x 32 req/s = 2,048 req/s. */
const HEY_WORKERS = 64;
const HEY_PER_WORKER = 32;
/** The webhook row's fixed offered rate (submissions/s). */
const WEBHOOK_RATE = 500;
const MB = 1024 * 1024;

/** Waits until the writer and the commit counter stop moving (in-flight requests done). */
async function settle(stats?: { submissions: number }): Promise<void> {
  let last = "";
  for (let stable = 0, i = 0; stable < 3 && i < 100; i++) {
    const now = `${commitCounter.commits}/${stats?.submissions ?? 0}`;
    stable = now === last ? stable + 1 : 0;
    last = now;
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * Writes the page cache's dirty pages out (`sync`) before a measured run, so the kernel
 * does not flush one server's buffered writes (tens of MB a run, flushed up to 30 s later)
 * while another is measured. Skipped where `sync` is missing.
 */
async function flushDisk(): Promise<void> {
  await new Deno.Command("sync").output().catch(() => {});
}

/** One measured wrk run: the disk flushed first, the server's CPU counted on `cpu` if given. */
async function measuredRun(
  cpu: CpuMeter | null,
  url: string,
  req: WrkRequest,
  opts: { seconds: number; connections: number; tag: string },
): Promise<WrkResult> {
  await flushDisk();
  cpu?.start();
  const result = await runWrk(url, req, opts);
  cpu?.stop();
  return result;
}

/**
 * Starts a bare reference server (kept in `started` for closing), warms it up, and returns
 * its rounds: `run(i)` measures round i, adding its CPU to `cpu`; `beside(i, into)` measures
 * one more round for another row's comparison, into that row's list (its CPU not counted).
 */
async function bareRounds(
  script: "ceiling.ts" | "floor.ts",
  kvPath: string,
  req: WrkRequest,
  started: BenchServer[],
): Promise<{
  url: string;
  runs: WrkResult[];
  cpu: CpuMeter;
  run: (i: number) => Promise<void>;
  beside: (i: number, into: WrkResult[], tag: string) => Promise<void>;
  close: () => Promise<void>;
}> {
  const server = await startBare(script, kvPath);
  started.push(server);
  const tag = script[0];
  await runWrk(server.url, req, {
    seconds: WARM_SECONDS,
    connections: CONNECTIONS,
    tag: `${tag}w`,
  });
  const runs: WrkResult[] = [];
  const cpu = new CpuMeter(server.pid!);
  /** One round into `into`, its CPU counted on `meter` if given. */
  const round = async (meter: CpuMeter | null, into: WrkResult[], roundTag: string) => {
    into.push(
      await measuredRun(meter, server.url, req, {
        seconds: ROUND_SECONDS,
        connections: CONNECTIONS,
        tag: roundTag,
      }),
    );
  };
  const run = (i: number) => round(cpu, runs, `${tag}${i}`);
  const beside = (i: number, into: WrkResult[], rowTag: string) =>
    round(null, into, `${tag}${rowTag}${i}`);
  const close = async () => {
    started.splice(started.indexOf(server), 1);
    await server.close();
  };
  return { url: server.url, runs, cpu, run, beside, close };
}

/** Whether a path answers with something other than the router's own 404. */
async function routeExists(url: string, init: RequestInit): Promise<{ ok: boolean; why: string }> {
  const res = await fetch(url, init);
  const text = await res.text();
  if (res.status === 404 && /"error":"Not found\."/.test(text)) {
    return { ok: false, why: "n/a (not built)" };
  }
  if (res.status >= 300) return { ok: false, why: `n/a (probe answered ${res.status}: ${text})` };
  return { ok: true, why: "" };
}

async function main(): Promise<void> {
  countCommits();
  const wrkVersion = await ensureWrk();
  await ensureHey();
  const dir = await Deno.makeTempDir({ prefix: "formwell-bench-" });
  const rss = new RssSampler();
  const rows: Row[] = [];
  const verdicts: Verdict[] = [];
  const started = Date.now();
  const jsonBody = JSON.stringify({ data: sixFieldData() });
  const bare: BenchServer[] = [];
  let flush = { p50: NaN, p90: NaN };
  let stopReceiver = () => Promise.resolve();
  const scaleSettings: string[] = [];
  try {
    // Before any server runs, so the probe measures the disk, not the load.
    flush = await flushLatency(dir);
    // 1. Formwell, idle until its rows: the bare servers below get its JSON submit request.
    const fw = await startFormwell(dir, `${dir}/formwell.kv`);
    const { deps } = fw;
    const fx = await createFixtures(deps);
    const submitPath = (id: string) => `/api/v1/submit/p/${id}`;
    const jsonReq: WrkRequest = {
      method: "POST",
      path: submitPath(fx.jsonForm.id),
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${fx.key}` },
      body: jsonBody,
      idempotencyKey: true,
    };
    // 2. The ceiling and the floor, bare servers each on its own KV file on the same disk;
    // measured in rounds between JSON submit's (step 3), so all see the same machine. They
    // get JSON submit's request byte for byte (its Authorization header unread): Deno.serve
    // hands a small request's body over whole but streams a larger one, at a cost per
    // request, so a shorter request would measure a faster path than the row's.
    console.error("ceiling: bare Deno.serve + one KV atomic commit per request");
    console.error("floor: bare Deno.serve + group commit of what a submission stores");
    const bareReq: WrkRequest = { ...jsonReq, path: "/" };
    const ceilingRounds = await bareRounds("ceiling.ts", `${dir}/ceiling.kv`, bareReq, bare);
    const floorRounds = await bareRounds("floor.ts", `${dir}/floor.kv`, bareReq, bare);
    /** Runs made in rounds with the floor's, compared round by round: the median ratio. */
    const ratioToFloor = (runs: WrkResult[], floorRuns = floorRounds.runs) =>
      median(runs.map((r, i) => r.rps / floorRuns[i].rps));

    // 3. Formwell's rows.
    // The webhook row's form notifies a receiver in its own process after each verdict: a
    // standard endpoint and a Slack destination (the receiver answers as Slack does).
    const receiver = await startReceiver();
    stopReceiver = receiver.close;
    await createWebhook(deps, fx.workspace.id, {
      url: `${receiver.url}/hook`,
      forms: [fx.webhookForm.id],
    }, { actor: "cli" });
    await createWebhook(deps, fx.workspace.id, {
      url: `${receiver.url}/slack/services/T0BENCH/B0BENCH/benchtoken`,
      format: "slack",
      forms: [fx.webhookForm.id],
    }, { actor: "cli" });
    let floor: WrkResult | null = null;
    const measure = async (
      name: string,
      req: WrkRequest,
      o: {
        /** Length of each run (of each round, with `rounds`). */
        seconds: number;
        connections?: number;
        tag: string;
        submits?: boolean;
        /** Runs the bare servers' round before each of `rounds` runs of the row. */
        between?: (round: number) => Promise<unknown>;
        rounds?: number;
        /** The floor's runs `between` made for this row (else the JSON rounds' floor). */
        floorRuns?: WrkResult[];
      },
    ): Promise<Row> => {
      const connections = o.connections ?? CONNECTIONS;
      console.error(`${name}: ${o.seconds}s at ${connections} connections`);
      await runWrk(fw.url, req, { seconds: WARM_SECONDS, connections, tag: `${o.tag}w` });
      await settle(deps.writer.stats);
      const c0 = commitCounter.commits;
      const r0 = commitCounter.reads;
      const s0 = deps.writer.stats.submissions;
      const w0 = deps.writer.stats.commits;
      const v0 = fw.verdictMs.length;
      rss.reset();
      const runs: WrkResult[] = [];
      const rounds = o.rounds ?? 1;
      const cpu = new CpuMeter(Deno.pid);
      for (let i = 0; i < rounds; i++) {
        // The bare servers run in their own processes: this one idles meanwhile, its peak
        // unchanged.
        if (o.between) await o.between(i);
        runs.push(
          await measuredRun(cpu, fw.url, req, {
            seconds: o.seconds,
            connections,
            tag: `${o.tag}${i}`,
          }),
        );
      }
      const result = combineRuns(runs);
      await settle(deps.writer.stats);
      rss.sample();
      const m = Deno.memoryUsage();
      console.error(
        `  memory after: rss ${(m.rss / MB).toFixed(0)} MB, heap ${(m.heapUsed / MB).toFixed(0)}/` +
          `${(m.heapTotal / MB).toFixed(0)} MB, external ${(m.external / MB).toFixed(0)} MB`,
      );
      const ratio = o.between ? ratioToFloor(runs, o.floorRuns) : result.rps / floor!.rps;
      const row: Row = {
        name,
        result,
        runs,
        peakRssMb: rss.peak / MB,
        ratio,
        cpu: cpu.perRequest(result.requests),
        steal: cpu.stealShare(),
      };
      row.readsPerRequest = (commitCounter.reads - r0) / Math.max(1, result.requests);
      console.error(`  ${row.readsPerRequest.toFixed(1)} KV reads per request`);
      if (o.submits) {
        row.accepted = deps.writer.stats.submissions - s0;
        row.commitsPerAccepted = (commitCounter.commits - c0) / Math.max(1, row.accepted);
        row.writerCommits = deps.writer.stats.commits - w0;
        const lat = fw.verdictMs.slice(v0).sort((a, b) => a - b);
        const at = (q: number) =>
          Math.round(lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] ?? NaN);
        row.verdictMs = { p50: at(0.5), p99: at(0.99), n: lat.length, jobs: deps.jobs.mode };
        console.error(
          `  201 to final verdict: p50 ${at(0.5)} ms, p99 ${at(0.99)} ms over ${lat.length}`,
        );
        console.error(
          `  writer: ${deps.writer.stats.commits - w0} group commits for ${row.accepted} ` +
            `submissions; ${commitCounter.commits - c0} KV commits in the process`,
        );
      }
      return row;
    };

    const json = await measure("JSON submit (API key, 6 fields)", jsonReq, {
      seconds: ROUND_SECONDS,
      tag: "j",
      submits: true,
      rounds: ROUNDS,
      between: async (i) => {
        await ceilingRounds.run(i);
        await floorRounds.run(i);
      },
    });
    const ceil = combineRuns(ceilingRounds.runs);
    floor = combineRuns(floorRounds.runs);
    const floorRow: Row = {
      name: "floor (Deno.serve + group commit, no app)",
      result: floor,
      runs: floorRounds.runs,
      ratio: 1,
      cpu: floorRounds.cpu.perRequest(floor.requests),
      steal: floorRounds.cpu.stealShare(),
    };
    rows.push(
      {
        name: "ceiling (Deno.serve + 1 KV commit)",
        result: ceil,
        runs: ceilingRounds.runs,
        ratio: ratioToFloor(ceilingRounds.runs),
        cpu: ceilingRounds.cpu.perRequest(ceil.requests),
        steal: ceilingRounds.cpu.stealShare(),
      },
      floorRow,
      json,
    );
    const logic = await logicVsJson({
      deps,
      workspaceId: fx.workspace.id,
      url: fw.url,
      json: jsonReq,
      rounds: ROUNDS,
      seconds: ROUND_SECONDS,
      warmSeconds: WARM_SECONDS,
      connections: CONNECTIONS,
      run: (url, req, opts) => measuredRun(null, url, req, opts),
    });
    rows.push(logic.row);
    verdicts.push(logic.verdict);

    if (withMetrics) {
      console.error("JSON submit with METRICS_TOKEN set vs unset, alternating rounds");
      const cpu = new CpuMeter(Deno.pid);
      const m = await metricsOnOff({
        dir,
        off: { url: fw.url, req: jsonReq },
        rounds: ROUNDS,
        seconds: ROUND_SECONDS,
        warmSeconds: WARM_SECONDS,
        connections: CONNECTIONS,
        run: (url, req, opts) => measuredRun(cpu, url, req, opts),
      });
      rows.push(m.row);
      verdicts.push(m.verdict);
    }

    // The latency target's rows: the floor and JSON submit alternate at the fixed offered rate
    // in ROUNDS rounds, as the saturated rows do. The floor's round shows what p99 this
    // runtime, KV and load generator allow at that rate on this machine right then; each of
    // JSON submit's rounds is compared with the floor's round just before it.
    const fixedOffered = {
      seconds: ROUND_SECONDS,
      workers: HEY_WORKERS,
      perWorker: HEY_PER_WORKER,
    };
    const fixedHeaders = { "Content-Type": "application/json", Authorization: `Bearer ${fx.key}` };
    const floorAtRate: HeyRequest = {
      method: "POST",
      url: floorRounds.url,
      headers: fixedHeaders,
      body: jsonBody,
    };
    const jsonAtRate: HeyRequest = {
      method: "POST",
      url: `${fw.url}${submitPath(fx.jsonForm.id)}`,
      headers: fixedHeaders,
      body: jsonBody,
    };
    console.error(
      `floor and JSON submit at ${HEY_WORKERS * HEY_PER_WORKER} req/s offered: hey -c ` +
        `${HEY_WORKERS} -q ${HEY_PER_WORKER}, ${ROUNDS} rounds of ${ROUND_SECONDS}s each`,
    );
    await runHey(floorAtRate, { ...fixedOffered, seconds: WARM_SECONDS });
    await settle(deps.writer.stats);
    const fixedCpu = new CpuMeter(Deno.pid);
    const floorFixedRuns: WrkResult[] = [];
    const fixedRuns: WrkResult[] = [];
    rss.reset();
    for (let i = 0; i < ROUNDS; i++) {
      floorFixedRuns.push(await runHey(floorAtRate, fixedOffered));
      await settle(deps.writer.stats);
      fixedCpu.start();
      fixedRuns.push(await runHey(jsonAtRate, fixedOffered));
      fixedCpu.stop();
    }
    await settle(deps.writer.stats);
    rss.sample();
    const floorFixed = combineRuns(floorFixedRuns);
    const fixed = combineRuns(fixedRuns);
    /** JSON submit's p99 over the floor's, round by round: the median round's. */
    const fixedP99Ratio = median(fixedRuns.map((r, i) => r.p99Ms / floorFixedRuns[i].p99Ms));
    rows.push({
      name: `floor, ${HEY_WORKERS * HEY_PER_WORKER} req/s offered (hey)`,
      result: floorFixed,
      runs: floorFixedRuns,
    });
    // The floor stays up for public submit's rounds.
    await ceilingRounds.close();
    const fixedRow: Row = {
      name: `JSON submit, ${HEY_WORKERS * HEY_PER_WORKER} req/s offered (hey)`,
      result: fixed,
      runs: fixedRuns,
      peakRssMb: rss.peak / MB,
      cpu: fixedCpu.perRequest(fixed.requests),
      steal: fixedCpu.stealShare(),
    };
    rows.push(fixedRow);
    console.error("draft save: 200 saves/s from 64 visitors while JSON submit runs");
    const draftRow = await draftSaveRow({
      deps,
      url: fw.url,
      workspaceId: fx.workspace.id,
      seconds: SECONDS,
      beside: () => runHey(jsonAtRate, fixedOffered),
    });
    rows.push(draftRow);
    verdicts.push({
      target: "draft save p50 < 10 ms at 200 saves/s beside JSON submit",
      measured: `${draftRow.result!.p50Ms.toFixed(2)} ms`,
      pass: draftRow.result!.p50Ms < 10,
    });

    // 201 to the webhook received, at a fixed offered 500 submissions/s.
    console.error(`webhook: 201 to received at ${WEBHOOK_RATE} submissions/s offered`);
    await settle(deps.writer.stats);
    await receiver.reset();
    const hooked = await runHey({
      method: "POST",
      url: `${fw.url}${submitPath(fx.webhookForm.id)}`,
      headers: { "Content-Type": "application/json", Authorization: `Bearer ${fx.key}` },
      body: jsonBody,
    }, { seconds: SECONDS, workers: WEBHOOK_RATE / 10, perWorker: 10 });
    // The last events are still on their way: wait until the receiver has them all.
    let webhook = await receiver.stats();
    let slack = await receiver.stats("slack");
    for (let i = 0; i < 100 && (webhook.n < hooked.requests || slack.n < hooked.requests); i++) {
      await new Promise((r) => setTimeout(r, 100));
      webhook = await receiver.stats();
      slack = await receiver.stats("slack");
    }
    const webhookRow: Row = {
      name: `webhook, ${WEBHOOK_RATE} submissions/s offered (201 to received)`,
      result: hooked,
    };
    rows.push(webhookRow);

    const publicBody = JSON.stringify({
      data: { ...sixFieldData(), _gotcha: "" },
      rendered_at: Date.now() - 15_000,
    });
    const publicReq: WrkRequest = {
      method: "POST",
      path: submitPath(fx.publicForm.id),
      headers: {
        "Content-Type": "application/json",
        Origin: BENCH_ORIGIN,
        "X-Forwarded-For": "{{ip}}",
      },
      body: publicBody,
      idempotencyKey: true,
    };
    // In rounds with the floor's, as JSON submit: the host's drift between this row and the
    // JSON rounds would otherwise move its ratio.
    const publicFloor: WrkResult[] = [];
    const public64 = await measure("public submit (origin, honeypot, rate limit)", publicReq, {
      seconds: ROUND_SECONDS,
      tag: "p",
      submits: true,
      rounds: ROUNDS,
      between: (i) => floorRounds.beside(i, publicFloor, "p"),
      floorRuns: publicFloor,
    });
    // The same at half the connections: a path that waits (a linger, a timer) rather than
    // computes falls well below its own 64-connection rate here. Also in rounds with the
    // floor's: the two rates are compared as ratios to the floor, each of its own rounds, so
    // the host's drift between the two rows cancels out.
    const public32Floor: WrkResult[] = [];
    const public32 = await measure("public submit, 32 connections", publicReq, {
      seconds: ROUND_SECONDS,
      connections: 32,
      tag: "p32",
      submits: true,
      rounds: ROUNDS,
      between: (i) => floorRounds.beside(i, public32Floor, "q"),
      floorRuns: public32Floor,
    });
    await floorRounds.close();
    rows.push(public64, public32);
    const publicRatio = public32.ratio! / public64.ratio!;
    verdicts.push({
      target: "public submit at 32 connections >= 0.80 of its 64-connection rate",
      measured: `${publicRatio.toFixed(2)} (each row's rate over the floor's in its own rounds: ` +
        `${public32.ratio!.toFixed(2)} / ${public64.ratio!.toFixed(2)})`,
      pass: publicRatio >= 0.8,
    });

    const uploadReq: WrkRequest = {
      method: "POST",
      path: `/api/v1/forms/p/${fx.uploadForm.id}/upload-url`,
      headers: {
        "Content-Type": "application/json",
        Origin: BENCH_ORIGIN,
        "X-Forwarded-For": "{{ip}}",
      },
      body: JSON.stringify({
        fieldId: fx.uploadForm.fields.find((f) => f.name === "cv")!.id,
        fileName: "cv.pdf",
        contentType: "application/pdf",
        sizeBytes: 12_345, // 64 addresses stay far below their 50 MB pools at any rate here
      }),
    };
    const upload = await routeExists(`${fw.url}${uploadReq.path}`, {
      method: "POST",
      headers: uploadReq.headers,
      body: uploadReq.body,
    });
    const uploadRow: Row = upload.ok
      ? await measure("upload-url issuance", uploadReq, { seconds: SECONDS, tag: "u" })
      : { name: "upload-url issuance", skipped: upload.why };
    rows.push(uploadRow);

    rows.push(
      await measure("schema fetch", {
        method: "GET",
        path: `/api/v1/forms/p/${fx.jsonForm.id}`,
        headers: { "X-Forwarded-For": "{{ip}}" },
      }, { seconds: SECONDS, tag: "s" }),
    );

    // 3. The submissions list on a big form: p50 of page 1 and page 50, one connection.
    const listPath = (page: number) =>
      `/api/v1/server/forms/${fx.listForm.id}/submissions?limit=100&page=${page}`;
    const auth = { Authorization: `Bearer ${fx.key}` };
    const list = await routeExists(`${fw.url}${listPath(1)}`, { headers: auth });
    let page1: Row = { name: `list page 1 of 100 (${LIST_SIZE} stored)`, skipped: list.why };
    let page50: Row = { name: `list page 50 of 100 (${LIST_SIZE} stored)`, skipped: list.why };
    if (list.ok) {
      console.error(`seeding ${LIST_SIZE} submissions`);
      const t0 = Date.now();
      await seedSubmissions(deps, fx.listForm, LIST_SIZE, { fields: (i) => sixFieldData(`${i}`) });
      console.error(`  seeded in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
      const get = (page: number): WrkRequest => ({
        method: "GET",
        path: listPath(page),
        headers: auth,
      });
      const one = { seconds: LIST_SECONDS, connections: 1 };
      page1 = { ...await measure(page1.name, get(1), { ...one, tag: "l1" }), ratio: undefined };
      page50 = { ...await measure(page50.name, get(50), { ...one, tag: "l50" }), ratio: undefined };
    }
    rows.push(page1, page50);
    const mcp = await mcpListRow({
      url: fw.url,
      formId: fx.listForm.id,
      key: fx.key,
      stored: LIST_SIZE,
      seconds: LIST_SECONDS,
      run: (url, req, opts) => measuredRun(null, url, req, opts),
    });
    rows.push(mcp.row);
    verdicts.push(mcp.verdict);
    const formsApi = await formsApiRows({
      deps,
      url: fw.url,
      workspaceId: fx.workspace.id,
      count: quick ? 50 : 200,
    });
    rows.push(...formsApi.rows);
    verdicts.push(formsApi.verdict);
    await fw.close();

    // The scale rows: 1,000,000 stored (BENCH_SCALE=N; 20,000 with --quick), own processes.
    const scale = await scaleRows({
      dir,
      n: scaleSize(quick ? 20_000 : undefined),
      minutes: scaleMinutes(),
      seconds: LIST_SECONDS,
      warmSeconds: WARM_SECONDS,
      run: (url, req, opts) => measuredRun(null, url, req, opts),
    });
    rows.push(...scale.rows);
    verdicts.push(...scale.verdicts);
    scaleSettings.push(...scale.settings);

    // 4. Verdicts.
    const w = json.result!;
    const clean = (r: Row) => r.result && r.result.non2xx + r.result.socketErrors === 0;
    verdicts.push(
      {
        target: "every measured response 2xx",
        measured: rows.filter((r) => r.result).map((r) =>
          `${r.name.split(" (")[0]}: ${r.result!.non2xx + r.result!.socketErrors}`
        ).join(", "),
        pass: rows.every((r) => !r.result || clean(r)),
      },
      {
        target: "JSON submit >= 0.5 of the floor, same rounds (aim 0.7)",
        measured: `median of ${ROUNDS} rounds ` +
          floorRounds.runs.map((f, i) => `${json.runs![i].rps.toFixed(0)}/${f.rps.toFixed(0)}`)
            .join(", ") +
          ` req/s = ${json.ratio!.toFixed(2)}` + noiseWarning(
            floorRounds.runs.map((r) => r.rps),
            Math.max(json.steal ?? 0, floorRounds.cpu.stealShare() ?? 0),
          ),
        pass: json.ratio! >= 0.5 && Boolean(clean(json)),
      },
      {
        target: "JSON submit: main thread <= 180 µs per request",
        measured: json.cpu
          ? `${json.cpu.main.toFixed(0)} µs (the floor's: ` +
            `${floorRow.cpu?.main.toFixed(0) ?? "-"} µs)`
          : "-",
        pass: json.cpu ? json.cpu.main <= 180 : null,
      },
      {
        target: "public submit >= 0.5 of the floor, same rounds",
        measured: public64.ratio !== undefined
          ? `median of ${ROUNDS} rounds ` +
            publicFloor.map((f, i) => `${public64.runs![i].rps.toFixed(0)}/${f.rps.toFixed(0)}`)
              .join(", ") +
            ` req/s = ${public64.ratio.toFixed(2)}`
          : "-",
        pass: public64.ratio !== undefined
          ? public64.ratio >= 0.5 && Boolean(clean(public64))
          : null,
      },
      {
        target: `JSON submit p99 at ${HEY_WORKERS * HEY_PER_WORKER} req/s offered <= 1.3x the ` +
          "floor's at the same rate",
        measured: `median of ${ROUNDS} rounds ` +
          fixedRuns.map((r, i) => `${r.p99Ms.toFixed(1)}/${floorFixedRuns[i].p99Ms.toFixed(1)}`)
            .join(", ") +
          ` ms = ${fixedP99Ratio.toFixed(2)}x`,
        pass: fixedP99Ratio <= 1.3 && fixed.non2xx === 0,
      },
      {
        target: `JSON submit p99 < 50 ms at ${HEY_WORKERS * HEY_PER_WORKER} req/s offered`,
        measured: `${fixed.p99Ms.toFixed(2)} ms (p50 ${fixed.p50Ms.toFixed(2)} ms, ` +
          `${fixed.rps.toFixed(0)} req/s served, ${fixed.non2xx} non-2xx; saturated p99 at ` +
          `${CONNECTIONS} connections, for reference: ${w.p99Ms.toFixed(1)} ms; the floor at the ` +
          `same offered rate in the same rounds: p50 ${floorFixed.p50Ms.toFixed(1)} ms, p99 ` +
          `${floorFixed.p99Ms.toFixed(1)} ms; medians of the rounds)`,
        pass: fixed.p99Ms < 50 && fixed.non2xx === 0,
      },
      {
        target: "<= 0.2 KV commits per accepted submission, jobs included",
        measured: `${json.commitsPerAccepted!.toFixed(3)} in all; the writer made ` +
          `${json.writerCommits} group commits for ${json.accepted} submissions ` +
          `(${(json.accepted! / Math.max(1, json.writerCommits!)).toFixed(1)} per commit), ` +
          `the other commits are jobs (notifications; verdicts only with Akismet) and key touches`,
        pass: json.commitsPerAccepted! <= 0.2,
      },
      {
        target: "201 to final verdict p99 <= 2 s (JSON submit row)",
        measured: json.verdictMs
          ? `p50 ${json.verdictMs.p50} ms, p99 ${json.verdictMs.p99} ms ` +
            `(${json.verdictMs.n} submissions, JOBS=${json.verdictMs.jobs})`
          : "-",
        pass: json.verdictMs ? json.verdictMs.p99 <= 2_000 : null,
      },
      {
        target: `201 to webhook received p99 <= 2 s at ${WEBHOOK_RATE} submissions/s`,
        measured: `p50 ${webhook.p50} ms, p99 ${webhook.p99} ms over ${webhook.n} events ` +
          `(${hooked.requests} submissions, ${hooked.non2xx} non-2xx)`,
        pass: webhook.p99 !== null && webhook.p99 <= 2_000 && webhook.n >= hooked.requests &&
          hooked.non2xx === 0,
      },
      {
        target: `201 to Slack destination received p99 <= 2 s at ${WEBHOOK_RATE} submissions/s`,
        measured: `p50 ${slack.p50} ms, p99 ${slack.p99} ms over ${slack.n} messages ` +
          `(${hooked.requests} submissions)`,
        pass: slack.p99 !== null && slack.p99 <= 2_000 && slack.n >= hooked.requests,
      },
      {
        target: "upload-url issuance <= 800 µs CPU per request (every thread of the server)",
        measured: uploadRow.cpu
          ? `${cpuTotal(uploadRow.cpu).toFixed(0)} µs`
          : uploadRow.skipped ?? "-",
        pass: uploadRow.cpu ? cpuTotal(uploadRow.cpu) <= 800 && Boolean(clean(uploadRow)) : null,
      },
      {
        target: "peak RSS < 200 MB (JSON submit rows)",
        measured: `${json.peakRssMb!.toFixed(0)} MB saturated, ` +
          `${fixedRow.peakRssMb!.toFixed(0)} MB at the fixed rate`,
        pass: json.peakRssMb! < 200 && fixedRow.peakRssMb! < 200,
      },
      {
        target: "list page of 100: p50 < 20 ms (page 1)",
        measured: page1.result ? `${page1.result.p50Ms.toFixed(2)} ms` : page1.skipped!,
        pass: page1.result ? page1.result.p50Ms < 20 && Boolean(clean(page1)) : null,
      },
      {
        target: "list page 50 no slower than twice page 1 (p50)",
        measured: page1.result && page50.result
          ? `${page50.result.p50Ms.toFixed(2)} ms vs ${page1.result.p50Ms.toFixed(2)} ms`
          : page50.skipped!,
        pass: page1.result && page50.result
          ? page50.result.p50Ms <= 2 * page1.result.p50Ms && Boolean(clean(page50))
          : null,
      },
    );
  } finally {
    for (const server of bare) await server.close().catch(() => {});
    await stopReceiver().catch(() => {});
    rss.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }

  console.log(textTable(rows));
  console.log("");
  for (const line of verdictLines(verdicts)) console.log(line);
  console.log("\nCPU per request, by thread:");
  for (const line of cpuLines(rows)) console.log(`  ${line}`);
  const settings = [
    `- Server: FORMWELL_ENV=production, on-disk KV in a temp dir, queue listener on, ` +
    `RATE_LIMITS=${JSON.stringify(BENCH_RATE_LIMITS)} (every request spends from the limiter)`,
    `- V8 flags as \`deno task start\` runs the server: --max-semi-space-size=16 (caps the young ` +
    `generation, which V8 otherwise grows under this load) and --heap-growing-percent=50 (the ` +
    `old generation may grow by half before a full collection, where V8's default lets it ` +
    `grow several times: about 70 MB less peak RSS at the same rate); both tasks pass them.`,
    `- Load: wrk, 2 threads, ${CONNECTIONS} connections (list rows: 1), ` +
    `ceiling, floor and JSON submit alternating in ${ROUNDS} rounds of ${ROUND_SECONDS} s each ` +
    `(so load from elsewhere on the machine hits both; the ratio is the median of the ` +
    `rounds' ratios, p50 and p99 the median round's; every round is listed under Targets), ` +
    `public submit (64 and 32 connections) and the floor alternating in as many rounds the ` +
    `same way, ` +
    `${SECONDS} s other rows, ` +
    `${LIST_SECONDS} s list rows, each after a ${WARM_SECONDS} s warm-up; ` +
    `a unique Idempotency-Key per submit`,
    `- Browser rows (public submit, upload-url, schema) come from 64 client addresses ` +
    `(X-Forwarded-For, TRUST_PROXY on), each spending from its own per-IP limit.`,
    `- Server and load generator share the machine's cores. \`sync\` runs before every ` +
    `measured run, so one server's buffered writes are not flushed during another's.`,
    `- Memory allocator (server and ceiling): ${allocator()}.`,
    `- Disk flush (100-byte append + fsync in the KV files' directory, before the load): ` +
    `p50 ${flush.p50.toFixed(0)} µs, p90 ${flush.p90.toFixed(0)} µs: one at a time, ` +
    `${(1e6 / flush.p50).toFixed(0)} per second. KV fsyncs once per commit, so this bounds ` +
    `the ceiling (one commit per request), while a group commit pays it once for many ` +
    `submissions: the slower the flush, the higher the ratio.`,
    `- KV commits / accepted counts every atomic commit the server process made during the ` +
    `row (submit path, queue jobs, key last-used touches) over the submissions the writer stored.`,
    `- Peak RSS: the server's process (the bench itself, wrk excluded) during the row: the ` +
    `kernel's high-water mark, reset before each row, and 50 ms samples.`,
    `- Ceiling: bench/ceiling.ts in its own process, a KV file in the same temp dir.`,
    `- Floor (the ratio's reference): bench/floor.ts in its own process, measured in the ` +
    `same rounds: Deno.serve group-committing the rows a submission stores, with no ` +
    `routing, auth, validation, protection, hashing or read: what this runtime and KV allow. ` +
    `The ratio column is each row's req/s over the floor's (same rounds where listed). ` +
    `The ceiling and the floor get JSON submit's request byte for byte, headers included ` +
    `(Deno.serve streams the body of a request past about 512 bytes instead of handing it ` +
    `over whole, at a cost per request: a shorter request would measure a faster path).`,
    `- Latency target: hey, ${HEY_WORKERS} workers at ${HEY_PER_WORKER} req/s each ` +
    `(${HEY_WORKERS * HEY_PER_WORKER} req/s offered), the same JSON submit request without ` +
    `Idempotency-Key, with the server's background jobs running, alternating with the floor at ` +
    `the same offered rate in ${ROUNDS} rounds of ${ROUND_SECONDS} s each: each round's p99 ` +
    `is compared with the floor's just before it (what the runtime, KV and load generator ` +
    `allow at that rate right then), the ratio is the median round's, and the rows show the ` +
    `median round's p50 and p99 (hey's workers start together, so requests arrive in bursts ` +
    `of up to ${HEY_WORKERS}).`,
    `- Whole run: ${((Date.now() - started) / 1000).toFixed(0)} s${quick ? " (--quick)" : ""}.`,
  ];
  settings.push(
    `- KV read calls per request (get, getMany, list; each a trip to SQLite's one thread): ` +
      rows.filter((r) => r.readsPerRequest !== undefined).map((r) =>
        `${r.name.split(" (")[0]} ${r.readsPerRequest!.toFixed(1)}`
      ).join(", "),
  );
  settings.push(...scaleSettings);
  const path = await writeResults(await machineFacts(wrkVersion), settings, rows, verdicts);
  console.log(`\nwritten to ${path}`);
}

/**
 * The allocator the processes run on: glibc's malloc unless the bench was started
 * with an LD_PRELOAD (the ceiling and wrk inherit it), which would change what is measured.
 */
function allocator(): string {
  const preload = Deno.env.get("LD_PRELOAD");
  return preload ? `LD_PRELOAD=${preload}` : "glibc malloc (no LD_PRELOAD)";
}

if (import.meta.main) await main();
