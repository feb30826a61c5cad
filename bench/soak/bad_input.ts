/**
 * Bad input: thousands of generated malformed requests against the app in-process, then
 * a slice of them plus raw malformed HTTP against a real server process. Judged by the
 * answers (none may be 500 or above) and by KV before and after (nothing stored may change;
 * only rate-limit and repeated-failure counters, and API keys' last-used time, may move).
 * @module
 */
import { createApiKey, revokeApiKey } from "@/lib/keys/api_keys.ts";
import { loadConfig } from "@/lib/config.ts";
import type { Deps } from "@/lib/deps.ts";
import { createForm, setAccepting } from "@/lib/forms/forms.ts";
import { buildDeps } from "@/lib/runtime.ts";
import { seedSubmissions } from "@/bench/seed.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";
import { createApp } from "@/routes/mod.ts";
import { badCase } from "./bad_cases.ts";
import { type BadCase, type BadTargets, rng, validData } from "./bad_util.ts";
import { startServer } from "./process.ts";
import { rawHttpCases, sendRaw } from "./raw_http.ts";
import { BENCH_RATE_LIMITS } from "@/bench/server.ts";
import { type Figures, withDeps } from "./store.ts";

/** Sizes of a bad-input run. */
export interface BadInputOptions {
  inProcess: number;
  realProcess: number;
  seed: number;
}

const ORIGIN = "https://ok.example";

/** The forms and keys the generators aim at, with a few real submissions to protect. */
export async function createTargets(deps: Deps): Promise<BadTargets> {
  const ws = await createWorkspace(deps, { name: "bad input", plan: "business" });
  const other = await createWorkspace(deps, { name: "other", plan: "business" });
  const fields = [
    { name: "name", type: "text", required: true, maxLength: 50, pattern: "^[A-Za-z ]+$" },
    { name: "email", type: "email", required: true },
    { name: "age", type: "integer", min: 18, max: 120 },
    { name: "plan", type: "select", options: ["free", "pro"] },
    { name: "tags", type: "multiselect", options: ["a", "b"] },
    { name: "website", type: "url" },
    { name: "when", type: "date" },
    { name: "cv", type: "file", allowedTypes: ["application/pdf"], maxSizeMB: 1 },
  ];
  const def = { name: "Bad input", fields, honeypot: "_hp", allowed_origins: [ORIGIN] };
  const form = await createForm(deps, ws.id, def);
  const captchaForm = await createForm(deps, ws.id, {
    ...def,
    captcha: { provider: "turnstile", siteKey: "site", secret: "0x4AAAAAAAsoakSecret" },
  });
  const closed = await createForm(deps, ws.id, def);
  await setAccepting(deps, closed.id, false);
  const otherForm = await createForm(deps, other.id, def);
  const key = async (scopes: ("submit" | "read" | "admin")[], wsId = ws.id) =>
    await createApiKey(deps, { workspaceId: wsId, name: scopes.join("+"), scopes });
  const revoked = await key(["submit", "read", "admin"]);
  await revokeApiKey(deps, revoked.id);
  await seedSubmissions(deps, form, 5);
  await seedSubmissions(deps, otherForm, 5);
  return {
    formId: form.id,
    captchaFormId: captchaForm.id,
    closedFormId: closed.id,
    otherFormId: otherForm.id,
    fileFieldId: form.fields.find((f) => f.name === "cv")!.id,
    keys: {
      submit: (await key(["submit"])).key,
      admin: (await key(["submit", "admin"])).key,
      read: (await key(["read"])).key,
      revoked: revoked.key,
      other: (await key(["submit", "read"], other.id)).key,
    },
    origin: ORIGIN,
  };
}

const VOLATILE = new Set(["rate_limits", "protection_failures"]);

/** Every KV entry except the counters bad requests are allowed to move. */
async function snapshot(kv: Deno.Kv): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for await (const e of kv.list({ prefix: [] })) {
    if (VOLATILE.has(String(e.key[0]))) continue;
    let v: unknown = e.value;
    if (e.key[0] === "api_keys" && v && typeof v === "object") {
      v = { ...v as Record<string, unknown>, last_used_at: null };
    }
    out.set(JSON.stringify(e.key), v instanceof Deno.KvU64 ? `u64:${v.value}` : JSON.stringify(v));
  }
  return out;
}

function changedKeys(a: Map<string, string>, b: Map<string, string>): string[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].filter((k) => a.get(k) !== b.get(k));
}

/** A fake siteverify that refuses every token (bad input never carries a good one). */
function startFakeVerify(): { url: string; close: () => Promise<void> } {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    () => Response.json({ success: false, "error-codes": ["invalid-input-response"] }),
  );
  return { url: `http://127.0.0.1:${server.addr.port}/`, close: () => server.shutdown() };
}

/** Tallies answers by status class and keeps a sample of the 5xx ones. */
class Tally {
  byClass = new Map<string, number>();
  fiveXx: string[] = [];
  requests = 0;

  /** Kinds of the 2xx answers, for judging that they were harmless reads. */
  okKinds = new Map<string, number>();

  add(c: BadCase, status: number, body: string): void {
    this.requests++;
    if (status < 300) {
      this.okKinds.set(
        `${c.kind} ${c.method}`,
        (this.okKinds.get(`${c.kind} ${c.method}`) ?? 0) + 1,
      );
    }
    const cls = `${Math.floor(status / 100)}xx`;
    this.byClass.set(cls, (this.byClass.get(cls) ?? 0) + 1);
    if (status >= 500) {
      this.fiveXx.push(
        `${status} ${c.kind} ${c.method} ${c.path.slice(0, 120)} -> ${body.slice(0, 200)}`,
      );
    }
  }
}

function requestInit(c: BadCase): RequestInit {
  const noBody = c.method === "GET" || c.method === "HEAD";
  return { method: c.method, headers: c.headers, body: noBody ? undefined : c.body as BodyInit };
}

/** Runs the scenario; returns its figures. 5xx samples go to stderr. */
export async function badInputSoak(opts: BadInputOptions): Promise<Figures> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-bad-" });
  const fake = startFakeVerify();
  const env = {
    SECRET: "bad-input-secret-bad-input-secret-0123",
    FORMWELL_ENV: "production",
    FORMWELL_SEED: "0",
    TRUST_PROXY: "1",
    LOCAL_STORAGE_DIR: `${dir}/files`,
    RATE_LIMITS: JSON.stringify(BENCH_RATE_LIMITS),
    TURNSTILE_VERIFY_URL: fake.url,
  };
  const tally = new Tally();
  const r = rng(opts.seed);
  let changed: string[] = [];
  let realChanged: string[] = [];
  let raw = { cases: 0, dropped: 0 };
  let healthyAfter = false;
  let control = false;
  try {
    // In-process: the whole app over an in-memory KV.
    const kv = await Deno.openKv(":memory:");
    try {
      const deps = await buildDeps(kv, loadConfig({ ...env, KV_PATH: ":memory:" }));
      const targets = await createTargets(deps);
      const app = createApp(deps);
      const before = await snapshot(kv);
      for (let i = 0; i < opts.inProcess; i++) {
        const c = badCase(r, targets, i);
        const res = await app.request(`http://localhost${c.path}`, requestInit(c));
        tally.add(c, res.status, await res.text());
      }
      const after = await snapshot(kv);
      changed = changedKeys(before, after);
      // Control: one valid submission must show up in the same comparison.
      const ok = await app.request(`http://localhost/api/v1/submit/p/${targets.formId}`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          authorization: `Bearer ${targets.keys.submit}`,
        },
        body: JSON.stringify({ data: validData() }),
      });
      await ok.body?.cancel();
      control = ok.status === 201 && changedKeys(after, await snapshot(kv)).length > 0;
    } finally {
      kv.close();
    }

    // A real process: a slice of the same generators over HTTP, then raw malformed HTTP.
    const kvPath = `${dir}/bad.kv`;
    const targets = await withDeps(kvPath, dir, createTargets);
    const read = async () => {
      const kv2 = await Deno.openKv(kvPath);
      try {
        return await snapshot(kv2);
      } finally {
        kv2.close();
      }
    };
    const before = await read();
    const server = await startServer(kvPath, dir, { TURNSTILE_VERIFY_URL: fake.url });
    try {
      for (let i = 0; i < opts.realProcess; i++) {
        const c = badCase(r, targets, i);
        const res = await fetch(`${server.url}${c.path}`, requestInit(c));
        tally.add(c, res.status, await res.text());
      }
      raw = { cases: 0, dropped: 0 };
      for (const rc of rawHttpCases(targets)) {
        const status = await sendRaw(server.url, rc.bytes);
        raw.cases++;
        if (status === null) raw.dropped++;
        else {tally.add(
            { kind: `raw: ${rc.name}`, method: "-", path: "-", headers: {} },
            status,
            "",
          );}
      }
      const health = await fetch(`${server.url}/healthz`);
      healthyAfter = health.ok;
      await health.body?.cancel();
    } finally {
      await server.kill9();
    }
    realChanged = changedKeys(before, await read());
  } finally {
    await fake.close();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
  for (const line of tally.fiveXx.slice(0, 20)) console.error(`bad input 5xx: ${line}`);
  for (const k of [...changed, ...realChanged].slice(0, 20)) {
    console.error(`bad input changed: ${k}`);
  }
  return {
    requests: tally.requests,
    acknowledged: tally.byClass.get("2xx") ?? 0,
    stored: changed.length + realChanged.length,
    lost: 0,
    duplicated: 0,
    "5xx": tally.fiveXx.length,
    seed: opts.seed,
    in_process: opts.inProcess,
    real_process: opts.realProcess,
    raw_http: raw.cases,
    raw_dropped: raw.dropped,
    changed_keys: changed.length + realChanged.length,
    healthy_after: healthyAfter,
    control_detected: control,
    ok_kinds: [...tally.okKinds].map(([k, n]) => `${k}:${n}`).join(";"),
    statuses: [...tally.byClass].sort().map(([k, n]) => `${k}x${n}`).join(","),
  };
}
