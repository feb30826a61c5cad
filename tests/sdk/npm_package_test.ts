/**
 * `npm install <base_url>/sdk/formwell-client.tgz` against a real server: npm installs the
 * package `@formwell/client` at the server's version with no dependency, `tsc` type-checks a
 * program against its types (and refuses a wrong one), a Node program submits with `Formwell`
 * and lists forms and submissions with `FormwellServer`, and `npx formwell deploy` runs.
 */
import assert from "node:assert/strict";
import { FORMWELL_VERSION } from "@/lib/ops/version.ts";
import { sdkFiles } from "@/lib/ui/sdk_bundle.ts";
import { readSubmission } from "@/lib/submissions/records.ts";
import { makeForm, makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { ROOT } from "@/tests/processes.ts";

const TSC = `${ROOT}node_modules/typescript/bin/tsc`;

async function sh(cmd: string, args: string[], cwd: string) {
  const out = await new Deno.Command(cmd, { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder();
  return {
    code: out.code,
    stdout: text.decode(out.stdout),
    stderr: text.decode(out.stderr),
  };
}

const GOOD = `import { Formwell, type SubmitResult } from "@formwell/client";
import { FormwellServer } from "@formwell/client/server";
import { useFormwell } from "@formwell/client/react";
const browser = new Formwell({ baseUrl: "https://forms.example.com" });
const result: Promise<SubmitResult> = browser.submit("fAbc", { email: "a@example.com" });
const server = new FormwellServer({ baseUrl: "https://forms.example.com", apiKey: "k" });
export const all = [result, server.forms.list(), useFormwell];
`;

const BAD = `import { FormwellServer } from "@formwell/client/server";
new FormwellServer({ baseUrl: 42 });
`;

const MAIN = `import { Formwell } from "@formwell/client";
import { FormwellServer } from "@formwell/client/server";
const [base, key, publicId] = process.argv.slice(2);
const sent = await new Formwell({ baseUrl: base }).submit(publicId, {
  name: "Ada from Node", email: "ada@example.com", topic: "support",
});
const server = new FormwellServer({ baseUrl: base, apiKey: key });
const forms = [];
for await (const f of server.forms.list()) forms.push(f.public_id);
const subs = [];
for await (const s of server.submissions.list(publicId)) subs.push(s.id);
console.log(JSON.stringify({ sent, forms, subs }));
`;

Deno.test("sdk npm package - npm installs it from the server, tsc and Node use it", async (t) => {
  const env = await testEnv();
  const ws = await makeWorkspace(env.deps, "pro");
  const form = await makeForm(env.deps, ws);
  const key = await makeKey(env.deps, ws, { scopes: ["read", "admin"] });
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen: () => {} },
    (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
  );
  const base = `http://127.0.0.1:${server.addr.port}`;
  const dir = await Deno.makeTempDir({ prefix: "formwell-npm-" });
  try {
    await t.step("the route answers a gzip tarball", async () => {
      const res = await fetch(`${base}/sdk/formwell-client.tgz`);
      assert.equal(res.status, 200);
      assert.equal(res.headers.get("content-type"), "application/gzip");
      const bytes = new Uint8Array(await res.arrayBuffer());
      assert.deepEqual([...bytes.subarray(0, 2)], [0x1f, 0x8b]);
    });

    await t.step("npm installs @formwell/client at the server's version", async () => {
      await Deno.writeTextFile(
        `${dir}/package.json`,
        JSON.stringify({ name: "app", private: true, type: "module" }),
      );
      const out = await sh("npm", [
        "install",
        `${base}/sdk/formwell-client.tgz`,
        "--no-audit",
        "--no-fund",
        "--cache",
        `${dir}/.npm-cache`,
      ], dir);
      assert.equal(out.code, 0, out.stderr);
      const pkg = JSON.parse(
        await Deno.readTextFile(`${dir}/node_modules/@formwell/client/package.json`),
      );
      assert.equal(pkg.name, "@formwell/client");
      assert.equal(pkg.version, FORMWELL_VERSION);
      assert.equal(pkg.dependencies, undefined);
      assert.deepEqual(Object.keys(pkg.exports).slice(0, 3), [".", "./server", "./react"]);
      // The same code as /sdk/formwell.js.
      const served = (await sdkFiles()).get("formwell.js")!.contents;
      const installed = await Deno.readTextFile(
        `${dir}/node_modules/@formwell/client/dist/formwell.js`,
      );
      assert.equal(installed, served);
    });

    await t.step(
      "tsc type-checks a program against its types, and refuses a wrong one",
      async () => {
        await Deno.writeTextFile(
          `${dir}/tsconfig.json`,
          JSON.stringify({
            compilerOptions: {
              module: "nodenext",
              moduleResolution: "nodenext",
              target: "es2022",
              strict: true,
              noEmit: true,
              lib: ["es2022", "dom"],
              types: [],
            },
          }),
        );
        await Deno.writeTextFile(`${dir}/good.ts`, GOOD);
        await Deno.writeTextFile(`${dir}/bad.ts`, BAD);
        const out = await sh("node", [TSC, "-p", "tsconfig.json"], dir);
        const errors = out.stdout.split("\n").filter((l) => /error TS/.test(l));
        assert.ok(errors.length > 0, "the wrong program is refused");
        assert.ok(errors.every((l) => l.startsWith("bad.ts(2,")), out.stdout);
      },
    );

    await t.step("a Node program submits with Formwell and reads with FormwellServer", async () => {
      await Deno.writeTextFile(`${dir}/main.mjs`, MAIN);
      const out = await sh("node", ["main.mjs", base, key, form.id], dir);
      assert.equal(out.code, 0, out.stderr);
      const got = JSON.parse(out.stdout);
      assert.match(got.sent.submission_id, /^sub_/);
      assert.deepEqual(got.forms, [form.id]);
      assert.deepEqual(got.subs, [got.sent.submission_id]);
      const stored = await readSubmission(env.deps.kv, form.id, got.sent.submission_id);
      assert.equal(stored?.fields.name, "Ada from Node");
    });

    await t.step("npx formwell deploy runs the package's bin", async () => {
      await Deno.writeTextFile(
        `${dir}/formwell.json`,
        JSON.stringify({
          forms: [{
            key: "waitlist",
            name: "Waitlist",
            fields: [{ name: "email", type: "email" }],
          }],
        }),
      );
      const out = await sh("npx", [
        "--no-install",
        "formwell",
        "deploy",
        "--url",
        base,
        "--api-key",
        key,
        "--dry-run",
      ], dir);
      assert.equal(out.code, 0, out.stderr);
      assert.deepEqual(JSON.parse(out.stdout).create, ["waitlist"]);
    });
  } finally {
    await server.shutdown();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
    env.close();
  }
});
