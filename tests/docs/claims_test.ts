/**
 * What the user docs claim, checked against what is true: how to get the client library,
 * how to reach a receiver on your own machine, the body of an unknown-field refusal (sent to
 * the real app), the length of example ids (from lib/ids.ts), and the Node versions that
 * install every dependency (from package-lock.json's engines).
 */
import assert from "node:assert/strict";
import { newFormId, newId } from "@/lib/ids.ts";
import { ROOT } from "@/tests/processes.ts";
import { makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";

const read = (path: string) => Deno.readTextFile(`${ROOT}${path}`);

/** The user docs: README, the client library's README and docs/*.md (decisions aside). */
async function userDocs(): Promise<string[]> {
  const out = ["README.md", "sdk/README.md"];
  for await (const e of Deno.readDir(`${ROOT}docs`)) {
    if (e.isFile && e.name.endsWith(".md")) out.push(`docs/${e.name}`);
  }
  return out.sort();
}

Deno.test("docs - the client library is installed from the server, not the registry", async () => {
  const text = await read("sdk/README.md");
  assert.doesNotMatch(text, /npm (install|i|add) @formwell\/client/);
  assert.match(text, /npm install https:\/\/[^\s]+\/sdk\/formwell-client\.tgz/);
  for (const path of await userDocs()) {
    assert.doesNotMatch(await read(path), /npm (install|i|add) @formwell\/client/, path);
  }
});

Deno.test("docs - webhooks.md says how to reach a receiver on your own machine", async () => {
  const text = await read("docs/webhooks.md");
  assert.match(text, /WEBHOOK_ALLOW_PRIVATE=1/);
  assert.match(await read("docs/configuration.md"), /`WEBHOOK_ALLOW_PRIVATE`/);
});

Deno.test("docs - migrating.md names the unknown-field refusal the app sends", async () => {
  const text = await read("docs/migrating.md");
  assert.doesNotMatch(text, /422 unknown_field/);
  assert.match(text, /422 validation_failed/);
  assert.match(text, /"type": "unknown_field"/);
  const env = await testEnv();
  try {
    const form = await makeForm(env.deps, await makeWorkspace(env.deps));
    const res = await postJson(env, `/api/v1/submit/p/${form.id}`, {
      data: { name: "Ada", email: "ada@example.com", submit: "Send" },
    });
    assert.equal(res.status, 422);
    const body = await res.json();
    assert.equal(body.code, "validation_failed");
    assert.deepEqual(
      body.errors.filter((e: { field: string }) => e.field === "submit").map((e: {
        type: string;
      }) => e.type),
      ["unknown_field"],
    );
  } finally {
    env.close();
  }
});

Deno.test("docs - example ids have the length of real ones", async () => {
  const formLength = newFormId().length;
  const prefixes = ["ws", "sub", "key", "usr", "job", "upl", "whk", "msg", "evt", "dlv"] as const;
  const lengths = new Map(prefixes.map((p) => [p, newId(p).length]));
  const wrong: string[] = [];
  for (const path of await userDocs()) {
    const text = await read(path);
    // A form id: "f" and base62 (the second character a capital or a digit, unlike words).
    for (const [id] of text.matchAll(/\bf[A-Z0-9][A-Za-z0-9]{3,}\b/g)) {
      if (id.length !== formLength) wrong.push(`${path}: ${id} (form ids have ${formLength})`);
    }
    // A prefixed id: the prefix, "_" and a lowercase ULID (which starts with a digit).
    const ids = new RegExp(`\\b(${prefixes.join("|")})_([0-9][0-9A-Za-z]*)(?![_\\w])`, "g");
    for (const [id, prefix, rest] of text.matchAll(ids)) {
      const want = lengths.get(prefix as typeof prefixes[number])!;
      if (id.length !== want || rest !== rest.toLowerCase()) {
        wrong.push(`${path}: ${id} (${prefix} ids have ${want} lowercase characters)`);
      }
    }
  }
  assert.deepEqual(wrong, []);
});

/** Whether version `v` (x.y.z) satisfies an npm `engines.node` range of the forms in use. */
function satisfies(v: string, range: string): boolean {
  const num = (s: string) => s.replace(/\.x$/, "").split(".").map(Number);
  const cmp = (a: number[], b: number[]) => {
    for (let i = 0; i < 3; i++) if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
    return 0;
  };
  const have = num(v);
  return range.split("||").some((set) => {
    const parts = set.trim().replace(/(>=|<=|>|<|\^|~)\s+/g, "$1").split(/\s+/);
    return parts.every((c) => {
      if (c === "*" || c === "") return true;
      const m = /^(>=|<=|>|<|\^|~)?(\d+(?:\.\d+)*(?:\.x)?)$/.exec(c);
      if (!m) throw new Error(`unknown range ${range}`);
      const want = num(m[2]);
      const d = cmp(have, want);
      switch (m[1]) {
        case ">=":
          return d >= 0;
        case ">":
          return d > 0;
        case "<":
          return d < 0;
        case "<=":
          return d <= 0;
        case "^":
          return d >= 0 && have[0] === want[0];
        case "~":
          return d >= 0 && have[0] === want[0] && have[1] === (want[1] ?? have[1]);
        default:
          return want.every((n, i) => have[i] === n);
      }
    });
  });
}

Deno.test("docs - the README's Node versions install every dependency", async () => {
  const readme = await read("README.md");
  const named = [...readme.matchAll(/Node\.js (\d+\.\d+) or later[^,]*, or (\d+\.\d+) or later/g)]
    .flatMap((m) => [m[1], m[2]]);
  assert.equal(named.length, 2, "README names the Node versions it needs");
  const lock = JSON.parse(await read("package-lock.json")) as {
    packages: Record<string, { engines?: { node?: string } }>;
  };
  const ranges = Object.entries(lock.packages)
    .map(([name, p]) => [name, p.engines?.node] as const)
    .filter((e): e is readonly [string, string] => typeof e[1] === "string");
  assert.ok(ranges.length > 0);
  for (const minor of named) {
    const version = `${minor}.0`;
    const refused = ranges.filter(([, r]) => !satisfies(version, r));
    assert.deepEqual(refused, [], `Node ${version} must install every dependency`);
  }
  // The range helper itself: what npm would say for a few of the lock's ranges.
  assert.ok(satisfies("20.19.0", ">=22.12.0 || >=20.19.0 <21.0.0"));
  assert.ok(!satisfies("21.7.0", ">=22.12.0 || >=20.19.0 <21.0.0"));
  assert.ok(!satisfies("20.18.1", ">=20.19.0"));
  assert.ok(satisfies("20.19.0", "^16 || ^18 || >=20"));
});
