import assert from "node:assert/strict";
import {
  browserImportsServer,
  cycles,
  describe,
  graphOf,
  libImportsUi,
  readGraph,
  routeImportsRoute,
  RULES,
  rulesImportOutside,
  sdkImportsServer,
  type Violation,
} from "@/tests/architecture_rules.ts";

const PROJECT = new URL("..", import.meta.url).pathname;
/** Folders whose every module the rules cover, reached from main.ts and cli.ts or not. */
const FOLDERS = ["lib", "routes", "islands", "components"];

/** The modules of each violation, in a stable order. */
function pairs(found: Violation[]): string[][] {
  return sorted(found.map((v) => v.modules));
}

function sorted(lists: string[][]): string[][] {
  return lists.sort((a, b) => a.join().localeCompare(b.join()));
}

Deno.test("architecture - rules on synthetic graphs", async (t) => {
  await t.step("a cycle, type-only edges included, is found and named", () => {
    const g = graphOf([
      "lib/deps.ts -type-> lib/submissions/writer.ts",
      "lib/submissions/writer.ts -> lib/kv/kv.ts",
      "lib/submissions/writer.ts -type-> lib/deps.ts",
      "lib/a.ts -> lib/a.ts",
    ]);
    assert.deepEqual(
      pairs(cycles(g)),
      sorted([
        ["lib/a.ts"],
        ["lib/deps.ts", "lib/submissions/writer.ts"],
      ]),
    );
    assert.deepEqual(cycles(graphOf(["lib/a.ts -> lib/b.ts", "lib/b.ts -type-> lib/c.ts"])), []);
  });

  await t.step("lib importing routes or islands is found, even for types", () => {
    const g = graphOf([
      "lib/x.ts -type-> islands/hosted/types.ts",
      "lib/y.ts -> routes/f/_form_page.tsx",
      "lib/z.ts -> components/fields.ts",
      "routes/f/mod.ts -> lib/z.ts",
    ]);
    assert.deepEqual(
      pairs(libImportsUi(g)),
      sorted([
        ["lib/x.ts", "islands/hosted/types.ts"],
        ["lib/y.ts", "routes/f/_form_page.tsx"],
      ]),
    );
  });

  await t.step("islands and components take only types from lib", () => {
    const g = graphOf([
      "islands/A.tsx -type-> lib/schemas.ts",
      "islands/A.tsx -> components/fields.ts",
      "islands/A.tsx -> islands/hosted/client.ts",
      "islands/B.tsx -> lib/schemas.ts",
      "islands/B.tsx -> lib/rules/mod.ts",
      "components/fields.ts -> lib/rules/evaluate.ts",
      "islands/C.tsx -> routes/f/_page.ts",
      "components/fields.ts -type-> lib/schemas.ts",
      "components/fields.ts -> lib/ids.ts",
      "components/fields.ts -> islands/A.tsx",
    ]);
    assert.deepEqual(
      pairs(browserImportsServer(g)),
      sorted([
        ["islands/B.tsx", "lib/schemas.ts"],
        ["islands/C.tsx", "routes/f/_page.ts"],
        ["components/fields.ts", "lib/ids.ts"],
        ["components/fields.ts", "islands/A.tsx"],
      ]),
    );
  });

  await t.step("the client library takes only lib/rules from lib; lib/rules only itself", () => {
    const g = graphOf([
      "sdk/src/validate.ts -> lib/rules/mod.ts",
      "sdk/src/submit.ts -> sdk/src/validate.ts",
      "sdk/src/x.ts -type-> lib/schemas.ts",
      "sdk/src/y.ts -> routes/sdk.ts",
      "lib/rules/mod.ts -> lib/rules/evaluate.ts",
      "lib/rules/evaluate.ts -type-> lib/schemas.ts",
      "lib/rules/logic.ts -> lib/forms/patterns.ts",
      "lib/forms/validator.ts -> lib/rules/mod.ts",
    ]);
    assert.deepEqual(
      pairs(sdkImportsServer(g)),
      sorted([["sdk/src/x.ts", "lib/schemas.ts"], ["sdk/src/y.ts", "routes/sdk.ts"]]),
    );
    assert.deepEqual(
      pairs(rulesImportOutside(g)),
      sorted([
        ["lib/rules/evaluate.ts", "lib/schemas.ts"],
        ["lib/rules/logic.ts", "lib/forms/patterns.ts"],
      ]),
    );
  });

  await t.step("a route importing another route's module is found", () => {
    const g = graphOf([
      "routes/api/form_post.ts -> routes/f/_form_page.tsx",
      "routes/admin/forms/new.tsx -> routes/admin/forms/_editor.tsx",
      "routes/admin/forms/new.tsx -> routes/admin/_layout.tsx",
      "routes/mod.ts -> routes/api/public.ts",
      "routes/admin/mod.ts -> routes/admin/forms/new.tsx",
      "routes/api/public.ts -> routes/api/form_post.ts",
      "routes/admin/mod.ts -> routes/f/[id].tsx",
      "routes/admin/_routes.gen.ts -> routes/admin/forms/new.tsx",
      "routes/admin/_routes.gen.ts -> routes/f/[id].tsx",
      "routes/admin/_layout.tsx -> routes/admin/forms/new.tsx",
      "routes/f/[id].tsx -type-> routes/f/[id]/thanks.tsx",
    ]);
    assert.deepEqual(
      pairs(routeImportsRoute(g)),
      sorted([
        ["routes/admin/_layout.tsx", "routes/admin/forms/new.tsx"],
        ["routes/admin/_routes.gen.ts", "routes/f/[id].tsx"],
        ["routes/admin/mod.ts", "routes/f/[id].tsx"],
        ["routes/api/public.ts", "routes/api/form_post.ts"],
        ["routes/f/[id].tsx", "routes/f/[id]/thanks.tsx"],
      ]),
    );
  });
});

Deno.test("architecture - the real module graph keeps every rule", async (t) => {
  const graph = await readGraph(["main.ts", "cli.ts"], PROJECT, FOLDERS);
  await t.step("the graph holds the project's modules, islands and type-only edges", () => {
    for (const m of ["lib/deps.ts", "routes/mod.ts", "islands/HostedForm.tsx", "lib/ui/build.ts"]) {
      assert.ok(graph.has(m), `${m} missing from the graph`);
    }
    const island = graph.get("islands/HostedForm.tsx")!;
    assert.ok(island.some((e) => e.to === "lib/schemas.ts" && e.typeOnly));
    assert.ok(![...graph.keys()].some((m) => m.includes("node_modules")));
  });
  for (const rule of RULES) {
    await t.step(rule.name, () => {
      const found = rule(graph);
      assert.equal(found.length, 0, `\n${describe(found)}`);
    });
  }
  await t.step("sdkImportsServer", async () => {
    const sdk = await readGraph(["sdk/mod.ts", "sdk/server.ts", "sdk/react.ts"], PROJECT, ["sdk"]);
    assert.ok(sdk.has("sdk/src/validate.ts"));
    const found = sdkImportsServer(sdk);
    assert.equal(found.length, 0, `\n${describe(found)}`);
  });
});

/** The packages lib/rules may import: each runs in browsers as well as in Deno. */
const RULES_PACKAGES = ["json-logic-js", "i18next"];

Deno.test("architecture - lib/rules is browser-safe: no Deno API, only its own modules and browser packages", async () => {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${PROJECT}lib/rules`)) {
    if (!entry.name.endsWith(".ts")) continue;
    const source = await Deno.readTextFile(`${PROJECT}lib/rules/${entry.name}`);
    if (/\bDeno\./.test(source)) found.push(`${entry.name} uses the Deno namespace`);
    for (const m of source.matchAll(/\bfrom\s+"([^"]+)"|\bimport\(\s*"([^"]+)"/g)) {
      const spec = m[1] ?? m[2];
      if (!spec.startsWith("./") && !RULES_PACKAGES.includes(spec)) {
        found.push(`${entry.name} imports ${spec}`);
      }
    }
  }
  assert.deepEqual(found, []);
});
