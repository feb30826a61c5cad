import assert from "node:assert/strict";
import { setMemberRole } from "@/lib/admin/members.ts";
import { findUserByEmail } from "@/lib/admin/users.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Role, Workspace } from "@/lib/schemas.ts";
import { page, post, signIn } from "@/tests/admin_support.ts";
import {
  accountEnv,
  auditEvents,
  captureLog,
  loggedLink,
  mailedLink,
  member,
  postPublic,
} from "@/tests/account_support.ts";
import { makeWorkspace, type TestEnv, testEnv } from "@/tests/helpers.ts";

/** Invites `email` as `role` from the members page as the signed-in `cookie`. */
async function invite(env: TestEnv, cookie: string, email: string, role: Role) {
  const { csrf } = await page(env, cookie, "/admin/members");
  const res = await post(env, cookie, "/admin/members", {
    _csrf: csrf,
    action: "invite",
    email,
    role,
  });
  assert.equal(res.status, 303);
  return res;
}

/** Changes (or with `role` null, removes) a member from the members page. */
async function change(env: TestEnv, cookie: string, email: string, role: Role | null) {
  const { csrf } = await page(env, cookie, "/admin/members");
  const user = (await findUserByEmail(env.deps, email))!;
  const res = await post(env, cookie, "/admin/members", {
    _csrf: csrf,
    action: role ? "role" : "remove",
    user_id: user.id,
    ...(role ? { role } : {}),
  });
  assert.equal(res.status, 303);
}

const JOIN = { new_password: "joining password", confirm_password: "joining password" };

/** The link no longer works: its page and its accept are 404 and nobody joined. */
async function assertDead(env: TestEnv, link: string, email: string, ws: Workspace) {
  const shown = await env.request(link);
  assert.equal(shown.status, 404, `${link} still shows`);
  await shown.body?.cancel();
  const accepted = await postPublic(env, link, JOIN);
  assert.equal(accepted.status, 404, `${link} still accepts`);
  await accepted.body?.cancel();
  const user = await findUserByEmail(env.deps, email);
  assert.ok(!user?.workspace_ids.includes(ws.id), `${email} joined`);
}

Deno.test("team - a demoted or removed owner's pending invitations grant nothing", async (t) => {
  const env = await accountEnv();
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    for (const who of ["boss", "alice", "carol"]) {
      await member(env, ws, `${who}@example.com`, "owner");
    }
    const boss = await signIn(env, "boss@example.com");
    const alice = await signIn(env, "alice@example.com");
    const carol = await signIn(env, "carol@example.com");
    await invite(env, alice, "mallory@example.com", "owner");
    await invite(env, alice, "ally@example.com", "admin");
    await invite(env, carol, "cousin@example.com", "owner");
    await invite(env, boss, "kept@example.com", "viewer");
    const fromAlice = await mailedLink(env, "mallory@example.com", "invite");
    const fromAlice2 = await mailedLink(env, "ally@example.com", "invite");
    const fromCarol = await mailedLink(env, "cousin@example.com", "invite");
    const fromBoss = await mailedLink(env, "kept@example.com", "invite");

    await t.step("demoting an owner withdraws their invitations, audited", async () => {
      await change(env, boss, "alice@example.com", "admin");
      await assertDead(env, fromAlice, "mallory@example.com", ws);
      await assertDead(env, fromAlice2, "ally@example.com", ws);
      const { html } = await page(env, boss, "/admin/members");
      assert.doesNotMatch(html, /mallory@example\.com|ally@example\.com/);
      const withdrawn = (await auditEvents(env, ws.id)).filter((e) =>
        e.action === "invite.withdrawn"
      );
      assert.deepEqual(
        withdrawn.map((e) => [e.actor, e.details.email, e.details.role, e.details.reason]).sort(),
        [
          ["user:boss@example.com", "ally@example.com", "admin", "inviter_lost_role"],
          ["user:boss@example.com", "mallory@example.com", "owner", "inviter_lost_role"],
        ],
      );
    });

    await t.step("removing an owner withdraws theirs; others' invitations stay", async () => {
      await change(env, boss, "carol@example.com", null);
      await assertDead(env, fromCarol, "cousin@example.com", ws);
      assert.equal((await env.request(fromBoss)).status, 200);
    });
  } finally {
    await env.stop();
  }
});

Deno.test("team - accepting re-checks the inviter, whatever happened to the invitation", async () => {
  const env = await accountEnv();
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    await member(env, ws, "boss@example.com", "owner");
    const dave = await member(env, ws, "dave@example.com", "owner");
    await invite(env, await signIn(env, "dave@example.com"), "eve@example.com", "owner");
    const link = await mailedLink(env, "eve@example.com", "invite");
    // Dave loses ownership without his invitations being withdrawn (a change made by a
    // step that stopped half-way, or a race with the accept): the invitation is still there.
    await setMemberRole(env.deps, ws.id, dave.id, "viewer", { actor: "test" });
    let pending = 0;
    for await (const _ of env.deps.kv.list({ prefix: keys.invitesByWorkspace(ws.id) })) pending++;
    assert.equal(pending, 1);
    await assertDead(env, link, "eve@example.com", ws);
    // Made owner again, his link works again: it is the inviter's role now that counts.
    await setMemberRole(env.deps, ws.id, dave.id, "owner", { actor: "test" });
    assert.equal((await postPublic(env, link, JOIN)).status, 303);
  } finally {
    await env.stop();
  }
});

Deno.test("team - without SMTP the inviter gets the link and is told where it went", async () => {
  const env = await accountEnv();
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    await member(env, ws, "owner@example.com", "owner");
    const owner = await signIn(env, "owner@example.com");
    assert.match((await page(env, owner, "/admin/members")).html, /Create invitation/);
    let res: Response | undefined;
    const lines = await captureLog(async () => {
      res = await invite(env, owner, "New@Example.com", "viewer");
    });
    const location = res!.headers.get("location")!;
    const { html } = await page(env, owner, location);
    assert.doesNotMatch(html, /Invitation sent/);
    assert.match(html, /Invitation created for new@example\.com, but not emailed/);
    assert.match(html, /Outbox/);
    assert.match(html, /server log/);
    const shown = /<code class="key" id="invite-link">([^<]+)<\/code>/.exec(html)?.[1];
    const mailed = await mailedLink(env, "new@example.com", "invite");
    assert.ok(shown?.endsWith(mailed), `${shown} is the mailed ${mailed}`);
    // The server log has one labelled line with the same link.
    const logged = loggedLink(lines, "new@example.com");
    assert.equal(logged.url, shown);
    assert.equal(logged.kind, "invitation");
    // Shown once: a reload says where to find it instead.
    const again = await page(env, owner, location);
    assert.doesNotMatch(again.html, /invite-link/);
    assert.match(again.html, /shown once already/);
  } finally {
    await env.stop();
  }
});

Deno.test("team - with SMTP an invitation says sent and logs no link", async () => {
  const env = await testEnv({ SMTP_URL: "smtp://127.0.0.1:9", RATE_LIMITS: '{"login":1000}' });
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    await member(env, ws, "owner@example.com", "owner");
    const owner = await signIn(env, "owner@example.com");
    assert.match((await page(env, owner, "/admin/members")).html, /Send invitation/);
    let res: Response | undefined;
    const lines = await captureLog(async () => {
      res = await invite(env, owner, "new@example.com", "viewer");
    });
    assert.equal(res!.headers.get("location"), "/admin/members?notice=invited");
    const { html } = await page(env, owner, "/admin/members?notice=invited");
    assert.match(html, /Invitation sent/);
    assert.doesNotMatch(html, /invite-link/);
    assert.deepEqual(lines, []);
  } finally {
    env.close();
  }
});
