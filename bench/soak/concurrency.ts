/**
 * Concurrency across processes: two real servers on one KV file take, at once, many
 * requests carrying the same Idempotency-Key (exactly one submission, every answer the
 * same), many distinct ones (each stored once, numbers unique and without gaps), one key's
 * distinct submissions spread over several forms (every form's group commit spends the
 * workspace's one rate-limit budget, in both processes), and then sustained load: clients
 * of both servers submitting to one form back to back for a while, where one instance's
 * commits keep beating the other's and a retry bound must not turn that into 503s.
 * @module
 */
import { type Figures, prepareStore, readStored, type StoredView } from "./store.ts";
import { type ServerProcess, startServer } from "./process.ts";

/** Sizes of a concurrency run. */
export interface ConcurrencyOptions {
  sameKey: number;
  distinct: number;
  /** Distinct submissions spread over `forms` forms of the key's workspace. */
  spread: { requests: number; forms: number };
  /** Clients per server, each submitting back to back for `ms` milliseconds. */
  sustained: { clients: number; ms: number };
}

/** Runs the scenario; returns its figures. */
export async function concurrencySoak(opts: ConcurrencyOptions): Promise<Figures> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-conc-" });
  const kvPath = `${dir}/soak.kv`;
  const store = await prepareStore(kvPath, dir, opts.spread.forms);
  const servers: ServerProcess[] = [];
  const statuses = new Map<number, number>();
  let fiveXx = 0;
  const post = async (server: ServerProcess, formId: string, key: string, ref: string) => {
    const res = await fetch(`${server.url}/api/v1/submit/p/${formId}`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        authorization: `Bearer ${store.key}`,
        "idempotency-key": key,
      },
      body: JSON.stringify({ data: { ref, email: "same@example.com" } }),
    });
    const json = await res.json().catch(() => ({}));
    statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
    if (res.status >= 500) fiveXx++;
    return res.status === 201 ? json.submission_id as string : null;
  };
  const spreadForm = (i: number) => store.moreFormIds[i % store.moreFormIds.length];
  let same: (string | null)[] = [];
  let distinct: (string | null)[] = [];
  let spread: (string | null)[] = [];
  let sustained: (string | null)[] = [];
  try {
    servers.push(...await Promise.all([startServer(kvPath, dir), startServer(kvPath, dir)]));
    const { formId } = store;
    /** Sends `n` posts at once, alternating servers; `to(i)` names form, key and ref. */
    const burst = (n: number, to: (i: number) => [string, string, string]) =>
      Promise.all(Array.from({ length: n }, (_, i) => post(servers[i % 2], ...to(i))));
    same = await burst(opts.sameKey, () => [formId, "same-key", "same"]);
    distinct = await burst(opts.distinct, (i) => [formId, `key-${i}`, `d${i}`]);
    spread = await burst(opts.spread.requests, (i) => [spreadForm(i), `spread-${i}`, `s${i}`]);
    const until = performance.now() + opts.sustained.ms;
    const client = async (c: number) => {
      const ids: (string | null)[] = [];
      while (performance.now() < until) {
        const i = ids.length;
        ids.push(await post(servers[c % 2], formId, `sustained-${c}-${i}`, `u${c}-${i}`));
      }
      return ids;
    };
    sustained = (await Promise.all(
      Array.from({ length: opts.sustained.clients * 2 }, (_, c) => client(c)),
    )).flat();
  } finally {
    await Promise.all(servers.map((s) => s.kill9()));
  }

  const views: StoredView[] = [];
  for (const id of [store.formId, ...store.moreFormIds]) views.push(await readStored(kvPath, id));
  const records = views.flatMap((v) => v.records);
  const storedIds = new Set(records.map((r) => r.id));
  const sameIds = new Set(same.filter(Boolean));
  const acked = [...same, ...distinct, ...spread, ...sustained].filter((id): id is string =>
    id !== null
  );
  const refs = new Map<string, number>();
  for (const r of records) {
    refs.set(String(r.fields.ref), (refs.get(String(r.fields.ref)) ?? 0) + 1);
  }
  const contiguous = (v: StoredView) =>
    v.records.map((r) => r.number).sort((a, b) => a - b).every((n, i) => n === i + 1);
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  return {
    requests: opts.sameKey + opts.distinct + opts.spread.requests + sustained.length,
    acknowledged: acked.length,
    stored: records.length,
    lost: [...new Set(acked)].filter((id) => !storedIds.has(id)).length,
    duplicated: [...refs.values()].filter((n) => n > 1).length,
    "5xx": fiveXx,
    same_key_requests: opts.sameKey,
    same_key_distinct_ids: sameIds.size,
    distinct_requests: opts.distinct,
    distinct_ids: new Set(distinct.filter(Boolean)).size,
    spread_requests: opts.spread.requests,
    spread_forms: opts.spread.forms,
    spread_ids: new Set(spread.filter(Boolean)).size,
    sustained_requests: sustained.length,
    sustained_acknowledged: sustained.filter(Boolean).length,
    numbers_unique: views.every((v) => v.numbersUnique),
    numbers_contiguous: views.every(contiguous),
    counter_equals_recount: views.every((v) =>
      v.counter === v.records.length && v.seq === v.records.length
    ),
    statuses: [...statuses].map(([s, n]) => `${s}x${n}`).join(","),
  };
}
