import assert from "node:assert/strict";
import { runCli } from "@/cli.ts";
import { keys } from "@/lib/kv/keys.ts";
import { testEnv } from "./helpers.ts";
import { ROOT, runCliProcess } from "./processes.ts";
import { createUser, verifyLogin } from "@/lib/admin/users.ts";
import { RESET_TTL_MS } from "@/lib/admin/reset.ts";

Deno.test("cli - every command through runCli", async (t) => {
  const env = await testEnv();
  const dir = await Deno.makeTempDir();
  const file = `${dir}/form.json`;
  await Deno.writeTextFile(
    file,
    JSON.stringify({ name: "F", fields: [{ name: "a", type: "text" }] }),
  );
  const run = (...args: string[]) => runCli(env.deps, args) as Promise<Record<string, unknown>>;

  const ws = await run("workspace", "create", "--name", "Acme", "--plan", "free");
  await t.step("workspace create / set-plan / suspend", async () => {
    assert.deepEqual(Object.keys(ws).sort(), ["id", "name", "plan"]);
    assert.equal(ws.plan, "free");
    assert.equal(
      (await run("workspace", "set-plan", "--workspace", String(ws.id), "--plan", "pro")).plan,
      "pro",
    );
    assert.equal((await run("workspace", "suspend", "--workspace", String(ws.id))).suspended, true);
    assert.equal(
      (await run("workspace", "unsuspend", "--workspace", String(ws.id))).suspended,
      false,
    );
    await assert.rejects(
      run("workspace", "set-plan", "--workspace", String(ws.id), "--plan", "gold"),
      /--plan/,
    );
  });

  await t.step(
    "form create / update bumps schema_version only when fields change / close / open",
    async () => {
      const form = await run("form", "create", "--workspace", String(ws.id), "--file", file);
      assert.equal(form.schema_version, 1);
      const id = String(form.public_id);
      await Deno.writeTextFile(
        file,
        JSON.stringify({ name: "F2", fields: [{ name: "a", type: "text" }] }),
      );
      assert.equal((await run("form", "update", "--form", id, "--file", file)).schema_version, 1);
      await Deno.writeTextFile(
        file,
        JSON.stringify({ name: "F2", fields: [{ name: "b", type: "text" }] }),
      );
      assert.equal((await run("form", "update", "--form", id, "--file", file)).schema_version, 2);
      assert.equal((await run("form", "close", "--form", id)).accepting, false);
      assert.equal((await run("form", "open", "--form", id)).accepting, true);
      await Deno.writeTextFile(file, JSON.stringify({ name: "", fields: "x" }));
      await assert.rejects(
        run("form", "update", "--form", id, "--file", file),
        /Invalid form definition/,
      );
    },
  );

  await t.step("key create / list / revoke; raw value only at creation", async () => {
    const key = await run(
      "key",
      "create",
      "--workspace",
      String(ws.id),
      "--name",
      "backend",
      "--type",
      "test",
      "--scopes",
      "submit,read,admin",
    );
    assert.match(String(key.key), /^fw_test_[0-9A-Za-z]{38}$/);
    assert.deepEqual(key.scopes, ["submit", "read", "admin"]);
    const list = (await run("key", "list", "--workspace", String(ws.id))).keys as Record<
      string,
      unknown
    >[];
    assert.equal(list.length, 1);
    assert.ok(!JSON.stringify(list).includes(String(key.key)));
    assert.equal(list[0].prefix, key.prefix);
    assert.ok(String(key.key).startsWith(String(key.prefix)) && String(key.prefix).length < 16);
    assert.equal((await run("key", "revoke", "--key", String(key.id))).revoked, true);
    await assert.rejects(
      run("key", "create", "--workspace", String(ws.id), "--name", "x", "--scopes", "root"),
      /Unknown scope/,
    );
  });

  await t.step("keys fail on the free plan", async () => {
    const free = await run("workspace", "create", "--name", "Free", "--plan", "free");
    await assert.rejects(
      run("key", "create", "--workspace", String(free.id), "--name", "k"),
      /Starter/,
    );
  });

  await t.step("user create", async () => {
    const user = await runCli(
      env.deps,
      ["user", "create", "--email", "Bob@Example.com", "--workspace", String(ws.id)],
      { readPassword: () => Promise.resolve("correct horse") },
    ) as Record<string, unknown>;
    assert.equal(user.email, "bob@example.com");
    assert.ok(!("password_hash" in user));
    const stored = (await env.deps.kv.get<{ password_hash: string }>(keys.user(String(user.id))))
      .value!;
    assert.match(stored.password_hash, /^pbkdf2-sha256\$600000\$/);
  });
  env.close();
});

Deno.test("cli - the real process prints JSON and fails clearly", async () => {
  const dir = await Deno.makeTempDir();
  const env = { KV_PATH: `${dir}/kv.sqlite`, NO_COLOR: "1" };
  const run = (...args: string[]) => runCliProcess(env, ...args);
  const ok = await run("workspace", "create", "--name", "P", "--plan", "starter");
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).plan, "starter");
  const bad = await run("workspace", "create", "--name", "P");
  assert.notEqual(bad.code, 0);
  assert.equal(bad.stdout, "");
  assert.match(JSON.parse(bad.stderr).error, /Missing --plan/);
  const missing = await run("form", "close", "--form", "fNope");
  assert.notEqual(missing.code, 0);
  assert.equal(JSON.parse(missing.stderr).error, "Form not found.");
  await Deno.remove(dir, { recursive: true });
});

Deno.test("cli - user create reads the password from standard input, never the command line", async () => {
  const dir = await Deno.makeTempDir();
  const env = { KV_PATH: `${dir}/kv.sqlite`, NO_COLOR: "1" };
  const spawn = async (stdin: string, ...args: string[]) => {
    const child = new Deno.Command(Deno.execPath(), {
      args: ["run", "-A", "cli.ts", ...args],
      cwd: ROOT,
      env,
      stdin: "piped",
      stdout: "piped",
      stderr: "piped",
    }).spawn();
    const writer = child.stdin.getWriter();
    await writer.write(new TextEncoder().encode(stdin));
    await writer.close();
    const out = await child.output();
    const text = new TextDecoder();
    return { code: out.code, stdout: text.decode(out.stdout), stderr: text.decode(out.stderr) };
  };
  const refused = await spawn(
    "",
    "user",
    "create",
    "--email",
    "a@example.com",
    "--password",
    "pw-on-argv",
  );
  assert.equal(refused.code, 2);
  assert.equal(refused.stdout, "");
  assert.match(JSON.parse(refused.stderr).error, /--password is refused.*standard input/);
  assert.ok(!refused.stderr.includes("pw-on-argv"));

  const empty = await spawn("", "user", "create", "--email", "a@example.com");
  assert.equal(empty.code, 2);
  assert.match(JSON.parse(empty.stderr).error, /No password on standard input/);

  const ok = await spawn("correct horse battery\n", "user", "create", "--email", "a@example.com");
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(JSON.parse(ok.stdout).email, "a@example.com");
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  try {
    assert.ok(await verifyLogin({ kv }, "a@example.com", "correct horse battery"));
    assert.equal(await verifyLogin({ kv }, "a@example.com", "correct horse battery\n"), null);
  } finally {
    kv.close();
  }
  await Deno.remove(dir, { recursive: true });
});

Deno.test("cli - user reset-password prints a single-use link with the mailed link's rules", async () => {
  let now = Date.parse("2026-11-23T20:00:00Z");
  const env = await testEnv({ BASE_URL: "https://forms.example.org" }, { now: () => now });
  try {
    await createUser(env.deps, { email: "me@example.com", password: "the old password" });
    const run = (email: string) =>
      runCli(env.deps, ["user", "reset-password", "--email", email]) as Promise<
        Record<string, string>
      >;
    const first = await run("Me@Example.com");
    assert.deepEqual(Object.keys(first).sort(), ["expires_at", "url"]);
    assert.match(first.url, /^https:\/\/forms\.example\.org\/admin\/reset\/[0-9A-Za-z]{43}$/);
    assert.equal(first.expires_at, new Date(now + RESET_TTL_MS).toISOString());
    const second = await run("me@example.com");
    const path = (url: string) => new URL(url).pathname;
    assert.equal((await env.request(path(first.url))).status, 404, "a newer link replaces it");
    assert.equal((await env.request(path(second.url))).status, 200);
    const set = (url: string) =>
      env.request(path(url), {
        method: "POST",
        headers: {
          "content-type": "application/x-www-form-urlencoded",
          origin: "https://forms.example.org",
          "sec-fetch-site": "same-origin",
        },
        body: new URLSearchParams({
          new_password: "the new password",
          confirm_password: "the new password",
        }).toString(),
      });
    assert.equal((await set(second.url)).status, 303);
    assert.ok(await verifyLogin(env.deps, "me@example.com", "the new password"));
    assert.equal((await set(second.url)).status, 404, "it works once");
    const third = await run("me@example.com");
    now += RESET_TTL_MS + 1;
    assert.equal((await env.request(path(third.url))).status, 404, "it expires");
    await assert.rejects(run("nobody@example.com"), /No account uses that email/);
  } finally {
    env.close();
  }

  // The real process prints the link as one JSON object.
  const dir = await Deno.makeTempDir();
  const kv = await Deno.openKv(`${dir}/kv.sqlite`);
  await createUser({ kv, now: Date.now }, { email: "op@example.com", password: "long password" });
  kv.close();
  const out = await runCliProcess(
    { KV_PATH: `${dir}/kv.sqlite`, BASE_URL: "https://forms.example.org" },
    "user",
    "reset-password",
    "--email",
    "op@example.com",
  );
  assert.equal(out.code, 0, out.stderr);
  assert.match(JSON.parse(out.stdout).url, /^https:\/\/forms\.example\.org\/admin\/reset\//);
  await Deno.remove(dir, { recursive: true });
});
