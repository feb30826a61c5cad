import assert from "node:assert/strict";
import { runCli } from "@/cli.ts";
import { findUserByEmail } from "@/lib/admin/users.ts";
import { page, PASSWORD, post, signIn } from "@/tests/admin_support.ts";
import {
  accountEnv,
  auditEvents,
  mailedLink,
  member,
  postPublic,
} from "@/tests/account_support.ts";
import { makeWorkspace } from "@/tests/helpers.ts";

Deno.test("audit - members, invitations and passwords: who, from where, what (never a secret)", async () => {
  const env = await accountEnv();
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    await member(env, ws, "owner@example.com", "owner");
    const owner = await signIn(env, "owner@example.com");
    const act = async (fields: Record<string, string>) => {
      const { csrf } = await page(env, owner, "/admin/members");
      const res = await post(env, owner, "/admin/members", { _csrf: csrf, ...fields });
      assert.equal(res.status, 303, await res.text());
    };
    const secrets: string[] = [PASSWORD];
    const setPassword = (p: string) => ({ new_password: p, confirm_password: p });

    await act({ action: "invite", email: "new@example.com", role: "viewer" });
    const link = await mailedLink(env, "new@example.com", "invite");
    secrets.push(link.split("/").at(-1)!, "joined password 1");
    assert.equal(
      (await postPublic(env, link, setPassword("joined password 1"), "", "198.51.100.30")).status,
      303,
    );
    const joined = (await findUserByEmail(env.deps, "new@example.com"))!;
    await act({ action: "role", user_id: joined.id, role: "admin" });
    await act({ action: "invite", email: "later@example.com", role: "admin" });
    await act({ action: "withdraw", email: "later@example.com" });
    secrets.push((await mailedLink(env, "later@example.com", "invite")).split("/").at(-1)!);

    const joinedCookie = (await postPublic(
      env,
      "/admin/login",
      {
        email: "new@example.com",
        password: "joined password 1",
      },
      "",
      "198.51.100.30",
    )).headers.get("set-cookie")!.split(";")[0];
    const { csrf } = await page(env, joinedCookie, "/admin/account");
    secrets.push("joined password 2");
    const changed = await post(env, joinedCookie, "/admin/account", {
      _csrf: csrf,
      current_password: "joined password 1",
      ...setPassword("joined password 2"),
    });
    assert.equal(changed.status, 303);

    await postPublic(env, "/admin/reset", { email: "new@example.com" }, "", "198.51.100.40");
    const reset = await mailedLink(env, "new@example.com", "reset");
    secrets.push(reset.split("/").at(-1)!, "joined password 3");
    const byMail = await postPublic(
      env,
      reset,
      setPassword("joined password 3"),
      "",
      "198.51.100.40",
    );
    assert.equal(byMail.status, 303);
    const cli = await runCli(env.deps, [
      "user",
      "reset-password",
      "--email",
      "new@example.com",
    ]) as {
      url: string;
    };
    secrets.push(cli.url.split("/").at(-1)!, "joined password 4");
    const byCli = await postPublic(
      env,
      new URL(cli.url).pathname,
      setPassword("joined password 4"),
      "",
      "198.51.100.50",
    );
    assert.equal(byCli.status, 303);
    await act({ action: "remove", user_id: joined.id });

    const events = (await auditEvents(env, ws.id)).filter((e) => e.action !== "sign_in");
    const rows = events.map((e) => [e.action, e.actor, e.ip]);
    assert.deepEqual(rows, [
      ["member.invited", "user:owner@example.com", "203.0.113.0"],
      ["member.joined", "user:new@example.com", "198.51.100.0"],
      ["member.role_changed", "user:owner@example.com", "203.0.113.0"],
      ["member.invited", "user:owner@example.com", "203.0.113.0"],
      ["invite.withdrawn", "user:owner@example.com", "203.0.113.0"],
      ["user.password_changed", "user:new@example.com", "203.0.113.0"],
      ["user.password_reset", "user:new@example.com", "198.51.100.0"],
      ["user.password_reset", "user:new@example.com", "198.51.100.0"],
      ["member.removed", "user:owner@example.com", "203.0.113.0"],
    ]);
    const details = events.map((e) => e.details);
    assert.deepEqual(details[0], { email: "new@example.com", role: "viewer", replaced: false });
    assert.equal(details[1].role, "viewer");
    assert.equal(details[1].invited_by, "owner@example.com");
    assert.deepEqual([details[2].from, details[2].to], ["viewer", "admin"]);
    assert.deepEqual([details[4].email, details[4].reason], ["later@example.com", "withdrawn"]);
    assert.deepEqual([details[6].via, details[7].via], ["form", "cli"]);
    assert.deepEqual([details[8].email, details[8].from], ["new@example.com", "admin"]);
    const stored = JSON.stringify(events);
    for (const s of secrets) assert.ok(!stored.includes(s), `the audit log holds ${s}`);
    assert.doesNotMatch(stored, /\/admin\/(invite|reset)\//);
    assert.doesNotMatch(stored, /pbkdf2/);
  } finally {
    await env.stop();
  }
});
