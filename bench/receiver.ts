/**
 * A webhook receiver for the bench, in its own process (its work is not the server's):
 * `/hook` takes standard deliveries and answers 200; `/slack` answers like a Slack incoming
 * webhook (`200 ok`, text/html) and reads the submission's time from the message's date
 * token. Each records how long after the submission's `created_at` the event arrived.
 * `GET /stats?kind=standard|slack` returns `{n, p50, p99}` (ms) since the last `POST /reset`.
 * Usage: deno run -A bench/receiver.ts <port>
 * @module
 */

/** The submission time of a Slack message: the ISO fallback of its `<!date^...|ISO>` token. */
function slackCreatedAt(body: { blocks?: { elements?: { text?: string }[] }[] }): number {
  for (const b of body.blocks ?? []) {
    for (const e of b.elements ?? []) {
      const m = /<!date\^\d+\^[^|]*\|([^>]+)>/.exec(e.text ?? "");
      if (m) return Date.parse(m[1]);
    }
  }
  return NaN;
}

if (import.meta.main) {
  const port = Number(Deno.args[0]);
  let latencies: Record<string, number[]> = { standard: [], slack: [] };
  Deno.serve({ hostname: "127.0.0.1", port, onListen: () => {} }, async (req) => {
    const url = new URL(req.url);
    if (url.pathname === "/reset") {
      latencies = { standard: [], slack: [] };
      return new Response("ok");
    }
    if (url.pathname === "/stats") {
      const kind = url.searchParams.get("kind") === "slack" ? "slack" : "standard";
      const sorted = [...latencies[kind]].sort((a, b) => a - b);
      const at = (q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
      return Response.json({ n: sorted.length, p50: at(0.5) ?? null, p99: at(0.99) ?? null });
    }
    const now = Date.now();
    if (url.pathname.startsWith("/slack")) {
      const created = slackCreatedAt(await req.json());
      if (Number.isFinite(created)) latencies.slack.push(now - created);
      return new Response("ok", { headers: { "content-type": "text/html" } });
    }
    const body = await req.json() as { data?: { submission?: { created_at?: string } } };
    const created = Date.parse(body.data?.submission?.created_at ?? "");
    if (Number.isFinite(created)) latencies.standard.push(now - created);
    return new Response("ok");
  });
}
