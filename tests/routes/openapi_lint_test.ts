/**
 * The served OpenAPI document passes `redocly lint` with the recommended rules, as the
 * committed redocly.yaml configures them: no error and no warning. Redocly runs offline
 * (no telemetry, no update check) on the document `GET /api/v1/openapi.json` answers.
 */
import assert from "node:assert/strict";
import { ROOT } from "@/tests/processes.ts";
import { testEnv } from "@/tests/helpers.ts";

type Lint = { totals: { errors: number; warnings: number }; problems: { ruleId: string }[] };

/** Lints `doc` with the repository's redocly.yaml; the JSON report. */
async function redoclyLint(doc: unknown): Promise<Lint> {
  const dir = await Deno.makeTempDir({ prefix: "formwell-redocly-" });
  try {
    const file = `${dir}/openapi.json`;
    await Deno.writeTextFile(file, JSON.stringify(doc));
    const out = await new Deno.Command("node", {
      args: [
        `${ROOT}node_modules/.bin/redocly`,
        "lint",
        "--config",
        `${ROOT}redocly.yaml`,
        "--format=json",
        file,
      ],
      env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(out.stdout);
    return JSON.parse(text.slice(text.indexOf("{")));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("openapi lint - redocly's recommended rules find nothing in the served document", async () => {
  const env = await testEnv({ BASE_URL: "https://forms.formwell.dev" });
  try {
    const doc = await (await env.request("/api/v1/openapi.json")).json();
    const report = await redoclyLint(doc);
    assert.deepEqual(report.problems, []);
    assert.deepEqual(report.totals, { ...report.totals, errors: 0, warnings: 0 });

    // The same lint reports what it must: an operation without security or operationId.
    const broken = structuredClone(doc);
    const op = broken.paths["/api/v1/forms/p/{id}"].get;
    delete op.security;
    delete op.operationId;
    const rules = (await redoclyLint(broken)).problems.map((p) => p.ruleId).sort();
    assert.deepEqual(rules, ["operation-operationId", "security-defined"]);
  } finally {
    env.close();
  }
});
