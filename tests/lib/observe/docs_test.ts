import assert from "node:assert/strict";
import { Metrics } from "@/lib/observe/metrics.ts";

const ROOT = new URL("../../../", import.meta.url);

/** Every `formwell_` metric a text names, histogram series folded into their metric. */
function named(text: string): Set<string> {
  const names = text.match(/\bformwell_[a-z_]+/g) ?? [];
  return new Set(names.map((n) => n.replace(/_(bucket|count|sum)$/, "")));
}

Deno.test("operations docs - the dashboard, alerts and metric list name only real metrics", async () => {
  const metrics = new Metrics(() =>
    Promise.resolve({ pending: 0, oldestDueAt: null, oldestDueAgeMs: 0, undelivered: 0 })
  );
  const real = named(await metrics.text());
  assert.ok(real.has("formwell_http_requests_total"));
  const docs = {
    "docs/grafana-dashboard.json": await Deno.readTextFile(
      new URL("docs/grafana-dashboard.json", ROOT),
    ),
    "docs/alerts.yml": await Deno.readTextFile(new URL("docs/alerts.yml", ROOT)),
    "docs/operations.md": await Deno.readTextFile(new URL("docs/operations.md", ROOT)),
  };
  JSON.parse(docs["docs/grafana-dashboard.json"]);
  for (const [file, text] of Object.entries(docs)) {
    const unknown = [...named(text)].filter((n) => !real.has(n));
    assert.deepEqual(unknown, [], `${file} names metrics that do not exist`);
  }
  // The list in operations.md covers every metric.
  const listed = named(docs["docs/operations.md"]);
  assert.deepEqual([...real].filter((n) => !listed.has(n)), []);
});
