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
import { httpTypes, unreleasedMarks } from "@/tests/architecture_text.ts";

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

/** The project's TypeScript files under `folder` (project-relative paths). */
async function sources(folder: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(`${PROJECT}${folder}`)) {
    const path = `${folder}/${entry.name}`;
    if (entry.isDirectory) found.push(...await sources(path));
    else if (/\.tsx?$/.test(entry.name)) found.push(path);
  }
  return found.sort();
}

Deno.test("architecture - no code for data that was never released", async (t) => {
  await t.step("the finder sees shims and passes words that name other things", () => {
    const shims = [
      "  return `chn_legacy_${hex}`;",
      " * The chain id of a job: its own, or for a job enqueued before chains existed, one derived",
      " * part), in order; a lone event (not in a list), as earlier versions stored each one, is the",
      "  /** Legacy, no longer written: account mail now goes to the outbox. */",
      "  /** Absent in records stored before formats existed: standard. */",
      "    // `counted` absent: a grant from before verification counted, which reserved its bytes.",
      "  /** The inviter's user id (invitations stored before it was kept name the email only). */",
      "// Migrates webhooks of the old shape on read.",
      "const QUEUE_SHIM = 1; // a shim for jobs of the old format",
      "/** Read-side backwards-compat for v1 records. */",
    ];
    assert.deepEqual(
      shims.filter((line) => unreleasedMarks(line).length === 0),
      [],
      "lines the finder should have marked",
    );
    const fine = [
      '        "go to the Formspree-compatible endpoint POST /f/<form id>.",',
      "/** Object storage behind one interface: any S3-compatible store. */",
      "  // IPv4-compatible IPv6 (::a.b.c.d, deprecated): a stack may reach the embedded IPv4.",
      'const REACT_TYPES = `declare module "react" {}`;',
      "    await withKvRetry(() => deps.kv.delete(indexKey)); // left by an older schedule",
      " * the time, a link to the admin) with a `text` fallback for notifications",
      "    // Sessions from before the change are over, this one too.",
    ];
    assert.deepEqual(fine.flatMap(unreleasedMarks), []);
  });

  await t.step("the code reads no old shape, migrates nothing and carries no shim", async () => {
    const found: string[] = [];
    const files = await Promise.all(["lib", "routes", "islands", "components"].map(sources));
    for (const file of files.flat()) {
      for (const m of unreleasedMarks(await Deno.readTextFile(`${PROJECT}${file}`))) {
        found.push(`${file}:${m.line} (${m.mark}): ${m.text}`);
      }
    }
    assert.deepEqual(found, [], `code for data never released:\n${found.join("\n")}`);
  });
});

Deno.test("architecture - lib/submissions takes parsed input: no HTTP types", async (t) => {
  await t.step(
    "the finder sees Request, Response, Headers and Hono, not their names in words",
    () => {
      const src = [
        'import type { Context } from "hono";',
        "export function f(req: Request): Response {",
        "  const h = new Headers(req.headers);",
        "}",
      ].join("\n");
      assert.deepEqual(httpTypes(src), ["Headers", "Request", "Response", "hono"]);
      const fine = [
        "/** A submit request as the route received it: a Request. */",
        "// Response shapes live in routes/.",
        "export interface SubmitRequestInput { kind: string }",
        "const x = ctx.request;",
        'import { z } from "@hono/zod-openapi";',
      ].join("\n");
      assert.deepEqual(httpTypes(fine), []);
    },
  );

  await t.step("no module of lib/submissions uses one", async () => {
    const found: string[] = [];
    for (const file of await sources("lib/submissions")) {
      const types = httpTypes(await Deno.readTextFile(`${PROJECT}${file}`));
      if (types.length) found.push(`${file}: ${types.join(", ")}`);
    }
    assert.deepEqual(found, []);
  });
});
