/**
 * The ceiling server, run as its own process by the bench so nothing of Formwell is
 * loaded in it: a bare `Deno.serve` that reads the JSON body and commits it, with an id
 * and a timestamp (about the size of a stored submission), in one KV atomic operation.
 * Usage: deno run -A bench/ceiling.ts <kv-path> <port>
 * @module
 */

if (import.meta.main) {
  const [kvPath, port] = Deno.args;
  const kv = await Deno.openKv(kvPath);
  let n = 0;
  Deno.serve({ hostname: "127.0.0.1", port: Number(port), onListen: () => {} }, async (req) => {
    const body = await req.json();
    const id = `c_${Date.now().toString(36)}_${(n++).toString(36)}`;
    const key = ["ceiling", id];
    const res = await kv.atomic()
      .check({ key, versionstamp: null })
      .set(key, { id, created_at: new Date().toISOString(), body })
      .commit();
    return Response.json({ ok: res.ok, id }, { status: res.ok ? 201 : 409 });
  });
}
