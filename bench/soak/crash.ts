/**
 * Crash safety: a submission load against a real server process that is killed with
 * SIGKILL again and again and restarted on the same KV file. Clients retry with the same
 * Idempotency-Key until acknowledged. Afterwards, with every server stopped, the KV file
 * must hold each acknowledged submission exactly once, under the acknowledged id, with
 * unique numbers, counters equal to a recount, and its spam verdict stored with it.
 * @module
 */
import { type Figures, prepareStore, readStored } from "./store.ts";
import { type ServerProcess, startServer } from "./process.ts";

/** Sizes of a crash run. */
export interface CrashOptions {
  submissions: number;
  kills: number;
  clients: number;
}

interface Ack {
  id: string;
  number: number;
}

/** Runs the scenario; returns its figures (the caller judges them). */
export async function crashSoak(opts: CrashOptions): Promise<Figures> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-crash-" });
  const kvPath = `${dir}/soak.kv`;
  const store = await prepareStore(kvPath, dir);
  let server: ServerProcess = await startServer(kvPath, dir);
  let ready = Promise.resolve();
  const acks = new Map<number, Ack>();
  const f = { requests: 0, fiveXx: 0, networkErrors: 0, unexpected: 0, replays: 0 };
  let next = 0;

  const client = async () => {
    while (next < opts.submissions) {
      const i = next++;
      // Two links score 30 (still completed): a submission that scores anything keeps its
      // verdict, and this makes "scored in the commit that stored it" observable.
      const note = "see http://a.example and http://b.example";
      const body = JSON.stringify({ data: { ref: `r${i}`, email: `p${i}@example.com`, note } });
      for (let attempt = 0; attempt < 200; attempt++) {
        await ready;
        f.requests++;
        try {
          const res = await fetch(`${server.url}/api/v1/submit/p/${store.formId}`, {
            method: "POST",
            headers: {
              "content-type": "application/json",
              authorization: `Bearer ${store.key}`,
              "idempotency-key": `crash-${i}`,
            },
            body,
          });
          const json = await res.json().catch(() => null);
          if (res.status === 201) {
            if (res.headers.get("idempotent-replayed")) f.replays++;
            acks.set(i, { id: json.submission_id, number: json.submission_number });
            break;
          }
          if (res.status >= 500) f.fiveXx++;
          else {
            f.unexpected++;
            console.error(`crash soak: unexpected ${res.status} ${JSON.stringify(json)}`);
            break;
          }
        } catch {
          // The server died under this request: wait for the restart, retry the same key.
          f.networkErrors++;
          await new Promise((r) => setTimeout(r, 10));
        }
      }
    }
  };

  const killer = async () => {
    for (let k = 1; k <= opts.kills; k++) {
      const due = Math.floor((k * opts.submissions) / (opts.kills + 1));
      while (acks.size < due && next < opts.submissions) {
        await new Promise((r) => setTimeout(r, 5));
      }
      let restarted!: () => void;
      ready = new Promise((r) => restarted = r);
      await server.kill9();
      server = await startServer(kvPath, dir);
      restarted();
    }
  };

  try {
    await Promise.all([killer(), ...Array.from({ length: opts.clients }, client)]);
  } finally {
    await server.kill9();
  }

  const view = await readStored(kvPath, store.formId);
  let lost = 0;
  for (const [i, ack] of acks) {
    const found = view.byRef.get(`r${i}`) ?? [];
    if (!found.some((s) => s.id === ack.id && s.number === ack.number)) lost++;
  }
  const duplicated = [...view.byRef.values()].filter((list) => list.length > 1).length;
  const unacknowledged = [...view.byRef.keys()].filter((ref) => !acks.has(Number(ref.slice(1))))
    .length;
  await Deno.remove(dir, { recursive: true }).catch(() => {});
  return {
    requests: f.requests,
    acknowledged: acks.size,
    stored: view.records.length,
    lost,
    duplicated,
    "5xx": f.fiveXx,
    kills: opts.kills,
    submissions: opts.submissions,
    network_errors: f.networkErrors,
    replays: f.replays,
    unexpected_4xx: f.unexpected,
    stored_unacknowledged: unacknowledged,
    numbers_unique: view.numbersUnique,
    counter_equals_recount: view.counter === view.records.length &&
      view.seq === view.records.length,
    unscored: view.records.filter((r) => !r.spam).length,
    undelivered_jobs: view.undelivered,
  };
}
