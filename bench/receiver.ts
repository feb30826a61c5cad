/**
 * A webhook receiver for the bench, in its own process (its work is not the server's):
 * answers 200 to every POST and records how long after the submission's `created_at` the
 * event arrived. `GET /stats` returns `{n, p50, p99}` (ms) since the last `POST /reset`.
 * Usage: deno run -A bench/receiver.ts <port>
 * @module
 */

if (import.meta.main) {
  const port = Number(Deno.args[0]);
  let latencies: number[] = [];
  Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/reset") {
      latencies = [];
      return new Response("ok");
    }
    if (url.pathname === "/stats") {
      const sorted = [...latencies].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
      return Response.json({ n: sorted.length, p50: at(0.5) ?? null, p99: at(0.99) ?? null });
    }
    const now = Date.now();
    const body = await req.json() as { data?: { submission?: { created_at?: string } } };
    const created = Date.parse(body.data?.submission?.created_at ?? "");
    if (Number.isFinite(created)) latencies.push(now - created);
    return new Response("ok");
  });
}
