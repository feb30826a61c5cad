/**
 * The stack's floor, run as its own process by the bench, for reference beside the
 * ceiling: a bare `Deno.serve` that reads the JSON body and group-commits what Formwell
 * stores per submission (the record, its number and status index entries, the idempotency
 * record with its expiry), with the sequence checked and set and eight counters summed per
 * commit, and nothing else: no routing, key, validation, protection, hashing or read. What
 * it reaches is what this runtime and KV allow a submit path; Formwell's distance from it is
 * its own work per request.
 * Usage: deno run -A bench/floor.ts <kv-path> <port>
 * @module
 */

/** Submissions per commit at most (as the writer's batches). */
const MAX_BATCH = 64;
const DAY_MS = 86_400_000;

interface Pending {
  data: unknown;
  idempotencyKey: string;
  resolve: (body: object) => void;
  reject: (err: unknown) => void;
}

if (import.meta.main) {
  const [kvPath, port] = Deno.args;
  const kv = await Deno.openKv(kvPath);
  let seq = await kv.get<number>(["seq"]);
  let pending: Pending[] = [];
  let running = false;

  const drain = async () => {
    running = true;
    while (pending.length) {
      const batch = pending.slice(0, MAX_BATCH);
      pending = pending.slice(MAX_BATCH);
      const op = kv.atomic().check(seq);
      const created = new Date().toISOString();
      let number = seq.value ?? 0;
      const bodies = batch.map((item) => {
        const id = `sub_${crypto.randomUUID()}`;
        number++;
        const mark = { id, who: "", digest: "0123456789abcdef", at: Date.now() };
        op.set(["submissions", "f", id], {
          id,
          form_id: "f",
          mode: "live",
          number,
          fields: item.data,
          metadata: {},
          status: "completed",
          created_at: created,
        });
        op.set(["submissions_by_number", "f", "live", number], mark);
        op.set(["submissions_by_status", "f", "live", "completed", number], id);
        const body = { success: true, submission_id: id, submission_number: number };
        op.set(["idempotency", "f", "live", item.idempotencyKey], {
          hash: "0".repeat(64),
          body,
          expires_at: Date.now() + DAY_MS,
        }, { expireIn: DAY_MS });
        return body;
      });
      for (let c = 0; c < 8; c++) op.sum(["counters", c], BigInt(batch.length));
      op.set(["seq"], number);
      try {
        const res = await op.commit();
        if (!res.ok) throw new Error("the sequence moved: one process owns this KV file");
        seq = { key: ["seq"], value: number, versionstamp: res.versionstamp };
        batch.forEach((item, i) => item.resolve(bodies[i]));
      } catch (err) {
        for (const item of batch) item.reject(err);
      }
    }
    running = false;
  };

  Deno.serve({ hostname: "127.0.0.1", port: Number(port), onListen: () => {} }, async (req) => {
    const body = await req.json().catch(() => null) as { data?: unknown } | null;
    const idempotencyKey = req.headers.get("idempotency-key") ?? crypto.randomUUID();
    const stored = new Promise<object>((resolve, reject) =>
      pending.push({ data: body?.data, idempotencyKey, resolve, reject })
    );
    if (!running) drain();
    return Response.json(await stored, { status: 201 });
  });
}
