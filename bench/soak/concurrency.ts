/**
 * Concurrency across processes: two real servers on one KV file take, at once, many
 * requests carrying the same Idempotency-Key (exactly one submission, every answer the
 * same) and many distinct ones (each stored once, numbers unique and without gaps).
 * @module
 */
import { type Figures, prepareStore, readStored } from "./store.ts";
import { type ServerProcess, startServer } from "./process.ts";

/** Sizes of a concurrency run. */
export interface ConcurrencyOptions {
  sameKey: number;
  distinct: number;
}

/** Runs the scenario; returns its figures. */
export async function concurrencySoak(opts: ConcurrencyOptions): Promise<Figures> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-conc-" });
  const kvPath = `${dir}/soak.kv`;
  const store = await prepareStore(kvPath, dir);
  const servers: ServerProcess[] = [];
  const statuses = new Map<number, number>();
  let fiveXx = 0;
  const post = async (server: ServerProcess, key: string, ref: string) => {
    const res = await fetch(`${server.url}/api/v1/submit/p/${store.formId}`, {
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
  let same: (string | null)[] = [];
  let distinct: (string | null)[] = [];
  try {
    servers.push(...await Promise.all([startServer(kvPath, dir), startServer(kvPath, dir)]));
    same = await Promise.all(
      Array.from({ length: opts.sameKey }, (_, i) => post(servers[i % 2], "same-key", "same")),
    );
    distinct = await Promise.all(
      Array.from({ length: opts.distinct }, (_, i) => post(servers[i % 2], `key-${i}`, `d${i}`)),
    );
  } finally {
    await Promise.all(servers.map((s) => s.kill9()));
  }

  const view = await readStored(kvPath, store.formId);
  const sameIds = new Set(same.filter(Boolean));
  const distinctIds = new Set(distinct.filter(Boolean));
  const acknowledged = same.filter(Boolean).length + distinct.filter(Boolean).length;
  let lost = 0;
  for (const id of [...sameIds, ...distinctIds]) {
    if (!view.records.some((r) => r.id === id)) lost++;
  }
  const duplicated = [...view.byRef.values()].filter((list) => list.length > 1).length;
  const numbers = view.records.map((r) => r.number).sort((a, b) => a - b);
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  return {
    requests: opts.sameKey + opts.distinct,
    acknowledged,
    stored: view.records.length,
    lost,
    duplicated,
    "5xx": fiveXx,
    same_key_requests: opts.sameKey,
    same_key_distinct_ids: sameIds.size,
    distinct_requests: opts.distinct,
    distinct_ids: distinctIds.size,
    numbers_unique: view.numbersUnique,
    numbers_contiguous: numbers.every((n, i) => n === i + 1),
    counter_equals_recount: view.counter === view.records.length &&
      view.seq === view.records.length,
    statuses: [...statuses].map(([s, n]) => `${s}x${n}`).join(","),
  };
}
