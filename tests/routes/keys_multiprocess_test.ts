/**
 * Real processes on one KV file: two servers (main.ts) and the CLI. A key revoked by the
 * CLI must stop working on both servers within 30 s (there is no key cache, so it is
 * expected at once; the poll is bounded by SPEC's 30 s).
 * @module
 */
import assert from "node:assert/strict";
import { createApiKey } from "@/lib/keys/api_keys.ts";
import { loadConfig } from "@/lib/config.ts";
import { createForm } from "@/lib/forms/forms.ts";
import { buildDeps } from "@/lib/runtime.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";
import { CONTACT_FORM } from "@/tests/helpers.ts";
import { runCliProcess, type ServerProcess, startServer, within } from "@/tests/processes.ts";

const SECRET = "multiprocess-secret-multiprocess-secret-0";

function baseEnv(kvPath: string, dir: string): Record<string, string> {
  return {
    KV_PATH: kvPath,
    SECRET,
    NO_COLOR: "1",
    FORMWELL_SEED: "0",
    LOCAL_STORAGE_DIR: `${dir}/files`,
  };
}

async function status(url: string, key: string): Promise<number> {
  try {
    const res = await fetch(url, { headers: { authorization: `Bearer ${key}` } });
    await res.body?.cancel();
    return res.status;
  } catch {
    return 0;
  }
}

Deno.test("keys multiprocess - a CLI revoke stops the key on other server processes", async () => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-keys-mp-" });
  const kvPath = `${dir}/formwell.kv`;
  const env = baseEnv(kvPath, dir);
  const kv = await Deno.openKv(kvPath);
  const deps = await buildDeps(kv, loadConfig({ ...env, FORMWELL_ENV: "test" }));
  const ws = await createWorkspace(deps, { name: "mp", plan: "starter" });
  await createForm(deps, ws.id, CONTACT_FORM);
  const created = await createApiKey(deps, { workspaceId: ws.id, name: "mp key" });
  kv.close();

  const servers: ServerProcess[] = [];
  try {
    for (let i = 0; i < 2; i++) servers.push(await startServer(env));
    const urls = servers.map((s) => s.url);
    const forms = urls.map((u) => `${u}/api/v1/server/forms`);
    for (const url of forms) assert.equal(await status(url, created.key), 200);

    const cli = await runCliProcess(env, "key", "revoke", "--key", created.id);
    const out = cli.stdout;
    assert.equal(cli.code, 0, cli.stderr);
    assert.equal(JSON.parse(out).revoked, true);
    assert.ok(!out.includes(created.key), "the CLI never prints the raw key again");

    for (const url of forms) {
      const elapsed = await within(30_000, async () => (await status(url, created.key)) === 401);
      assert.notEqual(elapsed, null, `${url} still accepts the revoked key after 30 s`);
    }
  } finally {
    await Promise.all(servers.map((s) => s.stop()));
  }

  // The KV file itself (and its WAL) holds the key's prefix but never the raw key.
  let bytes = "";
  for await (const f of Deno.readDir(dir)) {
    if (f.isFile && f.name.startsWith("formwell.kv")) {
      bytes += new TextDecoder("latin1").decode(await Deno.readFile(`${dir}/${f.name}`));
    }
  }
  assert.ok(bytes.includes(created.prefix), "the dump is real: the prefix is in it");
  assert.ok(!bytes.includes(created.key.slice(12)), "no raw key in the KV file");
  await Deno.remove(dir, { recursive: true });
});
