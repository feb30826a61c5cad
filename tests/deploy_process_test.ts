/**
 * `deno task cli deploy` as a process against a real server process (main.ts): the plan,
 * applying it, an idempotent second run, `--check` exit codes, guarded field removals,
 * refused definitions and usage errors. The command never opens a KV (its KV_PATH cannot
 * be opened).
 * @module
 */
import assert from "node:assert/strict";
import { createApiKey } from "@/lib/keys/api_keys.ts";
import { loadConfig } from "@/lib/config.ts";
import { buildDeps } from "@/lib/runtime.ts";
import { createWorkspace } from "@/lib/workspaces/workspaces.ts";
import { runCliProcess, type ServerProcess, startServer } from "@/tests/processes.ts";

const SECRET = "deploy-process-secret-deploy-process-0001";

const CONTACT = {
  key: "contact",
  name: "Contact",
  fields: [
    { name: "name", type: "text", required: true, label: "Name" },
    { name: "email", type: "email", required: true },
    { name: "topic", type: "select", options: ["sales", "support"] },
  ],
  allowed_origins: ["https://example.com"],
  notifications: { emails: ["owner@example.com"] },
};
const NEWSLETTER = {
  key: "newsletter",
  name: "Newsletter",
  fields: [{ name: "email", type: "email", required: true }],
};

Deno.test("deploy - plan, apply, idempotent, --check, removals guarded", async (t) => {
  const dir = await Deno.makeTempDir({ prefix: "formwell-deploy-" });
  const env = {
    KV_PATH: `${dir}/formwell.kv`,
    SECRET,
    FORMWELL_SEED: "0",
    LOCAL_STORAGE_DIR: `${dir}/files`,
  };
  const kv = await Deno.openKv(env.KV_PATH);
  const deps = await buildDeps(
    kv,
    loadConfig({ ...env, FORMWELL_ENV: "test" }),
  );
  const ws = await createWorkspace(deps, { name: "deploy", plan: "pro" });
  const { key } = await createApiKey(deps, {
    workspaceId: ws.id,
    name: "ci",
    scopes: ["submit", "read", "admin"],
  });
  const { key: readKey } = await createApiKey(deps, {
    workspaceId: ws.id,
    name: "reader",
    scopes: ["read"],
  });
  kv.close();

  let server: ServerProcess | undefined;
  const file = `${dir}/formwell.json`;
  const write = (forms: unknown[]) =>
    Deno.writeTextFile(file, JSON.stringify({ $schema: "x", forms }));
  // No usable KV for the command: it must work over HTTP alone.
  const cliEnv = { KV_PATH: `${dir}/missing/dir/formwell.kv` };
  const deploy = async (...flags: string[]) => {
    const r = await runCliProcess(
      cliEnv,
      "deploy",
      "--url",
      server!.url,
      "--api-key",
      key,
      "--file",
      file,
      ...flags,
    );
    return { ...r, plan: r.stdout.trim() ? JSON.parse(r.stdout) : null };
  };
  const api = async (path: string, init: RequestInit = {}) => {
    const res = await fetch(`${server!.url}/api/v1/server${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${key}`,
        "content-type": "application/json",
      },
    });
    return { status: res.status, body: await res.json() };
  };

  try {
    server = await startServer(env);
    await write([CONTACT, NEWSLETTER]);

    await t.step("--dry-run prints the plan and changes nothing", async () => {
      const r = await deploy("--dry-run");
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.plan, {
        create: ["contact", "newsletter"],
        update: [],
        unchanged: [],
      });
      assert.equal((await api("/forms")).body.forms.length, 0);
    });

    await t.step(
      "--check exits 1 on a plan that is not empty, changing nothing",
      async () => {
        const r = await deploy("--check");
        assert.equal(r.code, 1);
        assert.deepEqual(r.plan.create, ["contact", "newsletter"]);
        assert.equal((await api("/forms")).body.forms.length, 0);
      },
    );

    await t.step("deploy applies the plan", async () => {
      const r = await deploy();
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.plan, {
        create: ["contact", "newsletter"],
        update: [],
        unchanged: [],
      });
      const form = (await api("/forms/key:contact")).body.form;
      assert.equal(form.name, "Contact");
      assert.deepEqual(form.fields.map((f: { name: string }) => f.name), [
        "name",
        "email",
        "topic",
      ]);
      assert.equal(form.schema_version, 1);
    });

    await t.step("a second run changes nothing; --check exits 0", async () => {
      const before = (await api("/forms/key:contact")).body.form;
      const r = await deploy();
      assert.equal(r.code, 0, r.stderr);
      assert.deepEqual(r.plan, {
        create: [],
        update: [],
        unchanged: ["contact", "newsletter"],
      });
      const after = (await api("/forms/key:contact")).body.form;
      assert.equal(after.updated_at, before.updated_at);
      assert.equal((await deploy("--check")).code, 0);
    });

    await t.step("a changed file is drift, then applied", async () => {
      await write([
        {
          ...CONTACT,
          fields: [...CONTACT.fields, { name: "phone", type: "tel" }],
        },
        { ...NEWSLETTER, name: "Newsletter signup" },
      ]);
      const check = await deploy("--check");
      assert.equal(check.code, 1);
      assert.deepEqual(check.plan, {
        create: [],
        update: ["contact", "newsletter"],
        unchanged: [],
      });
      const r = await deploy();
      assert.equal(r.code, 0, r.stderr);
      const form = (await api("/forms/key:contact")).body.form;
      assert.equal(form.schema_version, 2);
      assert.equal(
        (await api("/forms/key:newsletter")).body.form.name,
        "Newsletter signup",
      );
      assert.equal((await deploy("--check")).code, 0);
    });

    await t.step(
      "dropping a field of a form with submissions needs --allow-removals",
      async () => {
        const form = (await api("/forms/key:contact")).body.form;
        const sub = await fetch(
          `${server!.url}/api/v1/submit/p/${form.public_id}`,
          {
            method: "POST",
            headers: {
              authorization: `Bearer ${key}`,
              "content-type": "application/json",
            },
            body: JSON.stringify({
              data: { name: "Ada", email: "ada@example.com", topic: "sales" },
            }),
          },
        );
        assert.equal(sub.status, 201);
        await sub.body?.cancel();
        await write([{ ...CONTACT, fields: CONTACT.fields.slice(0, 2) }, {
          ...NEWSLETTER,
          name: "Newsletter signup",
          fields: [{ name: "email", type: "email", required: true }, {
            name: "x",
            type: "text",
          }],
        }]);
        const refused = await deploy();
        assert.equal(refused.code, 1);
        const err = JSON.parse(refused.stderr);
        assert.match(err.error, /--allow-removals/);
        assert.deepEqual(err.removals, [{
          key: "contact",
          fields: ["topic", "phone"],
        }]);
        const still = (await api("/forms/key:contact")).body.form;
        assert.equal(still.fields.length, 4, "nothing was applied");
        assert.equal(
          (await api("/forms/key:newsletter")).body.form.fields.length,
          1,
        );
        const dry = await deploy("--dry-run");
        assert.equal(dry.code, 0);
        assert.deepEqual(dry.plan.update, ["contact", "newsletter"]);
        assert.match(dry.stderr, /allow-removals/);
        const allowed = await deploy("--allow-removals");
        assert.equal(allowed.code, 0, allowed.stderr);
        const after = (await api("/forms/key:contact")).body.form;
        assert.deepEqual(after.fields.map((f: { name: string }) => f.name), [
          "name",
          "email",
        ]);
      },
    );

    await t.step(
      "a refused definition names the form and its problems",
      async () => {
        await write([{
          key: "broken",
          name: "Broken",
          fields: [{ name: "pick", type: "select" }],
        }]);
        const r = await deploy();
        assert.equal(r.code, 1);
        const err = JSON.parse(r.stderr);
        assert.equal(err.key, "broken");
        assert.equal(err.status, 422);
        assert.ok(
          err.errors.some((e: { field: string }) => e.field.startsWith("fields.0")),
        );
      },
    );

    await t.step("usage errors exit 2; a read key cannot apply", async () => {
      const none = await runCliProcess(cliEnv, "deploy", "--file", file);
      assert.equal(none.code, 2);
      assert.match(JSON.parse(none.stderr).error, /--url and --api-key/);
      await write([{ key: "Bad Key", name: "X" }]);
      assert.equal((await deploy()).code, 2);
      await write([{ key: "other", name: "Other" }]);
      const r = await runCliProcess(
        cliEnv,
        "deploy",
        "--url",
        server!.url,
        "--api-key",
        readKey,
        "--file",
        file,
      );
      assert.equal(r.code, 1);
      assert.equal(JSON.parse(r.stderr).code, "insufficient_scope");
    });
  } finally {
    await server?.stop();
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
});
