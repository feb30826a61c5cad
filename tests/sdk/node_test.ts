/**
 * The built library in Node (when `node` is installed): `dist`-style bundles imported by a
 * real Node process submit to the real app and read it back through the Server Data API.
 */
import assert from "node:assert/strict";
import { bundleSdk } from "@/lib/ui/sdk_bundle.ts";
import { makeForm, makeKey, makeWorkspace, testEnv } from "@/tests/helpers.ts";
import { freePort } from "@/tests/processes.ts";

const NODE = await new Deno.Command("node", {
  args: ["--version"],
  stdout: "null",
  stderr: "null",
})
  .output().then((o) => o.success, () => false);

const SCRIPT = `
import { Formwell, FormwellError } from "./server.js";
const [baseUrl, apiKey, formId] = process.argv.slice(2);
const fw = new Formwell({ baseUrl, apiKey });
const sent = await fw.submit(formId, { name: "Node", email: "node@example.com" });
const listed = [];
for await (const s of fw.submissions.list(formId)) listed.push(s.id);
let error = null;
try { await fw.forms.get("fNoSuchForm99"); } catch (e) { error = [e instanceof FormwellError, e.status, e.code]; }
console.log(JSON.stringify({ sent, listed, error }));
`;

Deno.test({
  name: "sdk node - server.js runs in Node against the real app",
  ignore: !NODE,
  async fn() {
    const dir = await Deno.makeTempDir({ prefix: "formwell-sdk-node-" });
    for (const [name, f] of await bundleSdk()) {
      await Deno.writeTextFile(`${dir}/${name}`, f.contents);
    }
    await Deno.writeTextFile(`${dir}/run.mjs`, SCRIPT);
    const env = await testEnv();
    const ws = await makeWorkspace(env.deps);
    const form = await makeForm(env.deps, ws);
    const key = await makeKey(env.deps, ws);
    const port = freePort();
    const server = Deno.serve(
      { hostname: "127.0.0.1", port, onListen: () => {} },
      (req, info) => env.app.fetch(req, { remoteAddr: info.remoteAddr }),
    );
    try {
      const out = await new Deno.Command("node", {
        args: ["run.mjs", `http://127.0.0.1:${port}`, key, form.id],
        cwd: dir,
        stdout: "piped",
        stderr: "piped",
      }).output();
      const text = new TextDecoder();
      assert.ok(out.success, text.decode(out.stderr));
      const result = JSON.parse(text.decode(out.stdout));
      assert.equal(result.sent.submission_number, 1);
      assert.deepEqual(result.listed, [result.sent.submission_id]);
      assert.deepEqual(result.error, [true, 404, "not_found"]);
    } finally {
      await server.shutdown();
      env.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
