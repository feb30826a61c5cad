/**
 * The npm package's `formwell` bin (dist/cli.js, built as the package ships it) in a real
 * Node process: `formwell deploy` against the real app plans, applies and then finds
 * nothing to change; the package's JSON Schema of formwell.json is the one the server serves.
 */
import assert from "node:assert/strict";
import { Ajv2020 } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { bundleSdk } from "@/lib/ui/sdk_bundle.ts";
import { makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { ROOT } from "@/tests/processes.ts";

const NODE = await new Deno.Command("node", { args: ["--version"], stdout: "null", stderr: "null" })
  .output().then((o) => o.success, () => false);

const FILE = {
  $schema: "https://forms.example.com/schemas/formwell.json",
  forms: [{
    key: "waitlist",
    name: "Waitlist",
    fields: [{ name: "email", type: "email", required: true }],
  }],
};

Deno.test({
  name: "sdk cli - npx formwell deploy runs in Node against the real app",
  ignore: !NODE,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "formwell-sdk-cli-" });
    const pkg = JSON.parse(await Deno.readTextFile(`${ROOT}sdk/package.json`));
    assert.equal(pkg.bin.formwell, "./dist/cli.js");
    for (const [name, f] of await bundleSdk()) {
      await Deno.writeTextFile(`${dir}/${name}`, f.contents);
    }
    await Deno.writeTextFile(`${dir}/formwell.json`, JSON.stringify(FILE));
    const env = await testEnv();
    const ws = await makeWorkspace(env.deps, "pro");
    const key = await makeKey(env.deps, ws, { scopes: ["read", "admin"] });
    const server = Deno.serve(
      { hostname: "127.0.0.1", port: 0, onListen: () => {} },
      (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    const run = async (...flags: string[]) => {
      const out = await new Deno.Command("node", {
        args: ["cli.js", "deploy", ...flags],
        cwd: dir,
        env: { FORMWELL_URL: `http://127.0.0.1:${server.addr.port}`, FORMWELL_API_KEY: key },
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder();
      return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
    };
    try {
      const first = await run();
      assert.equal(first.code, 0, first.stderr);
      assert.deepEqual(JSON.parse(first.stdout), {
        create: ["waitlist"],
        update: [],
        unchanged: [],
      });
      const second = await run("--check");
      assert.equal(second.code, 0, second.stderr);
      assert.deepEqual(JSON.parse(second.stdout), {
        create: [],
        update: [],
        unchanged: ["waitlist"],
      });
      const none = await new Deno.Command("node", { args: ["cli.js"], cwd: dir, stderr: "null" })
        .output();
      assert.equal(none.code, 2);
    } finally {
      await server.shutdown();
      env.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("sdk cli - the package's formwell.schema.json is the served schema", async () => {
  const env = await testEnv();
  try {
    const res = await env.request("/schemas/formwell.json");
    assert.equal(res.status, 200);
    assert.match(res.headers.get("content-type") ?? "", /json/);
    assert.equal(res.headers.get("access-control-allow-origin"), "*");
    const served = await res.json();
    const shipped = JSON.parse(await Deno.readTextFile(`${ROOT}sdk/formwell.schema.json`));
    assert.deepEqual(shipped, served, "regenerate sdk/formwell.schema.json from the server's");
    const ajv = new Ajv2020({ strict: false });
    (addFormats as unknown as (a: Ajv2020) => void)(ajv);
    const validate = ajv.compile(served);
    assert.ok(validate(FILE), JSON.stringify(validate.errors));
    assert.ok(!validate({ forms: [{ key: "Bad Key", name: "X" }] }));
    assert.ok(
      !validate({ forms: [{ key: "ok", name: "X", fields: [{ name: "a", type: "nope" }] }] }),
    );
  } finally {
    env.close();
  }
});
