import assert from "node:assert/strict";
import { listAccountMail } from "@/lib/admin/mail.ts";
import { INVITE_TTL_MS } from "@/lib/admin/invites.ts";
import { roleIn, setMemberRole } from "@/lib/admin/members.ts";
import { findUserByEmail } from "@/lib/admin/users.ts";
import { listApiKeys } from "@/lib/keys/api_keys.ts";
import { keys } from "@/lib/kv/keys.ts";
import type { Role } from "@/lib/schemas.ts";
import { page, PASSWORD, post, signIn } from "@/tests/admin_support.ts";
import { accountEnv, clock, mailedLink, member, postPublic } from "@/tests/account_support.ts";
import { contactData, makeForm, makeWorkspace, postJson, testEnv } from "@/tests/helpers.ts";

const BY_TEST = { actor: "test" };

Deno.test("team - roles: a viewer reads only, an admin cannot manage members", async (t) => {
  const env = await testEnv({ RATE_LIMITS: '{"login":1000}' });
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const form = await makeForm(env.deps, ws);
    const sent = await postJson(env, `/api/v1/submit/p/${form.id}`, contactData(1));
    const sid = (await sent.json()).submission_id as string;
    await member(env, ws, "owner@example.com", "owner");
    await member(env, ws, "admin@example.com", "admin");
    await member(env, ws, "viewer@example.com", "viewer");
    const viewer = await signIn(env, "viewer@example.com");
    const admin = await signIn(env, "admin@example.com");
    const owner = await signIn(env, "owner@example.com");
    const subs = `/admin/forms/${form.id}/submissions`;

    await t.step("a viewer sees forms, submissions and members", async () => {
      for (const path of ["/admin/forms", `/admin/forms/${form.id}`, subs, `${subs}/${sid}`]) {
        assert.equal((await page(env, viewer, path)).res.status, 200, path);
      }
      const members = await page(env, viewer, "/admin/members");
      assert.equal(members.res.status, 200);
      assert.match(members.html, /viewer@example\.com/);
      assert.doesNotMatch(members.html, /Send invitation/);
      const forms = await page(env, viewer, "/admin/forms");
      assert.doesNotMatch(forms.html, /href="\/admin\/keys"/, "no API keys link for a viewer");
    });

    await t.step("a viewer cannot export, edit, delete or manage keys", async () => {
      for (
        const path of [
          `/admin/forms/${form.id}/export.csv`,
          "/admin/keys",
          `/admin/forms/${form.id}/edit`,
          "/admin/forms/new",
        ]
      ) {
        const res = await env.request(path, { headers: { cookie: viewer } });
        assert.equal(res.status, 403, path);
        assert.match(await res.text(), /Only admins and owners of this workspace can do this/);
      }
      const { csrf } = await page(env, viewer, subs);
      const del = await post(env, viewer, subs, [["_csrf", csrf], ["action", "delete"], [
        "ids",
        sid,
      ]]);
      assert.equal(del.status, 403);
      assert.notEqual((await env.deps.kv.get(keys.submission(form.id, sid))).value, null);
      const spam = await post(env, viewer, `${subs}/${sid}`, { _csrf: csrf, status: "spam" });
      assert.equal(spam.status, 403);
      const key = await post(env, viewer, "/admin/keys", {
        _csrf: csrf,
        name: "sneaky",
        scopes: "read",
      });
      assert.equal(key.status, 403);
      assert.equal((await listApiKeys(env.deps, ws.id)).length, 0);
      const close = await post(env, viewer, `/admin/forms/${form.id}`, {
        _csrf: csrf,
        accepting: "off",
      });
      assert.equal(close.status, 403);
    });

    await t.step("a viewer may still switch workspace, change password, sign out", async () => {
      const { csrf } = await page(env, viewer, "/admin/account");
      const sw = await post(env, viewer, "/admin/switch", { _csrf: csrf, workspace_id: ws.id });
      assert.equal(sw.status, 303);
    });

    await t.step("an admin exports and manages keys but not members", async () => {
      const csv = await env.request(`/admin/forms/${form.id}/export.csv`, {
        headers: { cookie: admin },
      });
      assert.equal(csv.status, 200);
      await csv.body?.cancel();
      assert.equal((await page(env, admin, "/admin/keys")).res.status, 200);
      const { csrf, html } = await page(env, admin, "/admin/members");
      assert.doesNotMatch(html, /Send invitation/);
      const res = await post(env, admin, "/admin/members", {
        _csrf: csrf,
        action: "invite",
        email: "x@example.com",
        role: "owner",
      });
      assert.equal(res.status, 403);
      assert.match(await res.text(), /Only owners of this workspace can do this/);
      assert.equal((await listAccountMail(env.deps)).length, 0);
    });

    await t.step("an owner changes a role; it applies on the next request", async () => {
      const { csrf } = await page(env, owner, "/admin/members");
      const viewerUser = (await findUserByEmail(env.deps, "viewer@example.com"))!;
      const res = await post(env, owner, "/admin/members", {
        _csrf: csrf,
        action: "role",
        user_id: viewerUser.id,
        role: "admin",
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/admin/members?notice=role_changed");
      const csv = await env.request(`/admin/forms/${form.id}/export.csv`, {
        headers: { cookie: viewer },
      });
      assert.equal(csv.status, 200);
      await csv.body?.cancel();
    });

    await t.step("the last owner cannot leave or be demoted; with two, one can", async () => {
      const { csrf } = await page(env, owner, "/admin/members");
      const me = (await findUserByEmail(env.deps, "owner@example.com"))!;
      const demote = await post(env, owner, "/admin/members", {
        _csrf: csrf,
        action: "role",
        user_id: me.id,
        role: "viewer",
      });
      assert.equal(demote.status, 409);
      assert.match(await demote.text(), /needs at least one owner/);
      const remove = await post(env, owner, "/admin/members", {
        _csrf: csrf,
        action: "remove",
        user_id: me.id,
      });
      assert.equal(remove.status, 409);
      const adminUser = (await findUserByEmail(env.deps, "admin@example.com"))!;
      await setMemberRole(env.deps, ws.id, adminUser.id, "owner", BY_TEST);
      const leave = await post(env, owner, "/admin/members", {
        _csrf: csrf,
        action: "remove",
        user_id: me.id,
      });
      assert.equal(leave.status, 303);
      assert.equal(roleIn((await findUserByEmail(env.deps, "owner@example.com"))!, ws.id), null);
      const gone = await env.request(`/admin/forms/${form.id}`, { headers: { cookie: owner } });
      assert.equal(gone.status, 404, "a removed member no longer sees the workspace's forms");
      await gone.body?.cancel();
    });

    await t.step("a member whose stored role is missing is granted nothing", async () => {
      const stray = await member(env, ws, "stray@example.com", "owner");
      const { roles: _roles, ...bare } = stray;
      await env.deps.kv.set(keys.user(stray.id), bare);
      const cookie = await signIn(env, "stray@example.com");
      const forms = await page(env, cookie, "/admin/forms");
      assert.equal(forms.res.status, 200);
      assert.match(forms.html, /Ask an instance owner to add you to a workspace/);
      assert.doesNotMatch(forms.html, new RegExp(form.id));
      for (const path of [`/admin/forms/${form.id}`, `${subs}/${sid}`, "/admin/keys"]) {
        const res = await env.request(path, { headers: { cookie } });
        assert.equal(res.status, 404, path);
        await res.body?.cancel();
      }
    });
  } finally {
    env.close();
  }
});

Deno.test("team - two owners demoting each other at once leave one owner", async () => {
  const env = await testEnv();
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    const a = await member(env, ws, "a@example.com", "owner");
    const b = await member(env, ws, "b@example.com", "owner");
    const results = await Promise.allSettled([
      setMemberRole(env.deps, ws.id, a.id, "viewer", BY_TEST),
      setMemberRole(env.deps, ws.id, b.id, "viewer", BY_TEST),
    ]);
    assert.equal(results.filter((r) => r.status === "fulfilled").length, 1);
    const roles = await Promise.all(
      ["a@example.com", "b@example.com"].map(async (e) =>
        roleIn((await findUserByEmail(env.deps, e))!, ws.id)
      ),
    );
    assert.deepEqual(roles.sort(), ["owner", "viewer"]);
  } finally {
    env.close();
  }
});

Deno.test("team - invitations by email link", async (t) => {
  const time = clock();
  const env = await accountEnv({}, { now: time.now });
  try {
    const ws = await makeWorkspace(env.deps, "starter");
    await makeForm(env.deps, ws);
    await member(env, ws, "owner@example.com", "owner");
    const owner = await signIn(env, "owner@example.com");
    const invite = async (email: string, role: Role = "viewer") => {
      const { csrf } = await page(env, owner, "/admin/members");
      return await post(env, owner, "/admin/members", {
        _csrf: csrf,
        action: "invite",
        email,
        role,
      });
    };

    let link = "";
    await t.step("an owner invites; the mail carries a link; the list shows it", async () => {
      const res = await invite("New@Example.com");
      assert.equal(res.status, 303);
      link = await mailedLink(env, "new@example.com", "invite");
      const { html } = await page(env, owner, res.headers.get("location")!);
      assert.match(html, /new@example\.com/);
      // KV holds only the token's digest.
      for await (const e of env.deps.kv.list({ prefix: ["invites"] })) {
        assert.ok(!JSON.stringify(e.key).includes(link.split("/").at(-1)!));
      }
    });

    await t.step("the link page says which workspace and role", async () => {
      const res = await env.request(link);
      assert.equal(res.status, 200);
      const html = await res.text();
      assert.match(html, new RegExp(`Join ${ws.name}`));
      assert.match(html, /as <strong>viewer<\/strong>/);
      assert.match(html, /Choose a password/);
    });

    await t.step("mismatched or short passwords are refused in words", async () => {
      const mismatch = await postPublic(env, link, {
        new_password: "long enough 1",
        confirm_password: "long enough 2",
      });
      assert.equal(mismatch.status, 400);
      assert.match(await mismatch.text(), /confirmation differ/);
      const short = await postPublic(env, link, {
        new_password: "short",
        confirm_password: "short",
      });
      assert.equal(short.status, 400);
      assert.match(await short.text(), /at least 8 characters/);
    });

    await t.step("accepting creates the account, signs in, and works once", async () => {
      const res = await postPublic(env, link, {
        new_password: "a new password",
        confirm_password: "a new password",
      });
      assert.equal(res.status, 303);
      assert.equal(res.headers.get("location"), "/admin/forms?notice=joined");
      // Joining signs in, so this browser also gets a device cookie (lib/admin/devices.ts).
      assert.ok(res.headers.getSetCookie().some((c) => c.startsWith("formwell_device=usr_")));
      const cookie = (res.headers.get("set-cookie") ?? "").split(";")[0];
      const forms = await page(env, cookie, "/admin/forms?notice=joined");
      assert.equal(forms.res.status, 200);
      assert.match(forms.html, /You joined the workspace/);
      const user = (await findUserByEmail(env.deps, "new@example.com"))!;
      assert.equal(roleIn(user, ws.id), "viewer");
      const again = await postPublic(env, link, {
        new_password: "another password",
        confirm_password: "another password",
      });
      assert.equal(again.status, 404);
      assert.match(await again.text(), /does not work any more/);
      assert.equal((await env.request(link)).status, 404);
    });

    await t.step("a member cannot be invited again", async () => {
      const res = await invite("new@example.com");
      assert.equal(res.status, 409);
      assert.match(await res.text(), /already a member/);
    });

    await t.step("a second invitation replaces the first; withdrawing kills it", async () => {
      await invite("twice@example.com");
      const first = await mailedLink(env, "twice@example.com", "invite");
      await invite("twice@example.com", "admin");
      const second = await mailedLink(env, "twice@example.com", "invite", 2);
      assert.notEqual(first, second);
      assert.equal((await env.request(first)).status, 404);
      assert.equal((await env.request(second)).status, 200);
      const { csrf } = await page(env, owner, "/admin/members");
      const res = await post(env, owner, "/admin/members", {
        _csrf: csrf,
        action: "withdraw",
        email: "twice@example.com",
      });
      assert.equal(res.status, 303);
      assert.equal((await env.request(second)).status, 404);
    });

    await t.step("an existing account joins with its own password", async () => {
      const other = await makeWorkspace(env.deps, "pro");
      await member(env, other, "elsewhere@example.com", "owner");
      await invite("elsewhere@example.com", "admin");
      const join = await mailedLink(env, "elsewhere@example.com", "invite");
      assert.match(await (await env.request(join)).text(), /enter its password/);
      const wrong = await postPublic(env, join, { password: "not the password" });
      assert.equal(wrong.status, 401);
      assert.match(await wrong.text(), /not the password of this account/);
      const right = await postPublic(env, join, { password: PASSWORD });
      assert.equal(right.status, 303);
      const user = (await findUserByEmail(env.deps, "elsewhere@example.com"))!;
      assert.equal(roleIn(user, ws.id), "admin");
      assert.equal(roleIn(user, other.id), "owner");
    });

    await t.step("two accepts of one link at once: one account, one success", async () => {
      await invite("race@example.com");
      const race = await mailedLink(env, "race@example.com", "invite");
      const fields = { new_password: "race password", confirm_password: "race password" };
      const answers = await Promise.all([
        postPublic(env, race, fields),
        postPublic(env, race, fields),
      ]);
      await Promise.all(answers.map((r) => r.body?.cancel()));
      assert.deepEqual(answers.map((r) => r.status).sort(), [303, 404]);
    });

    await t.step("a link expires after 7 days", async () => {
      await invite("late@example.com");
      const late = await mailedLink(env, "late@example.com", "invite");
      time.advance(INVITE_TTL_MS + 1);
      assert.equal((await env.request(late)).status, 404);
      const res = await postPublic(env, late, {
        new_password: "too late now",
        confirm_password: "too late now",
      });
      assert.equal(res.status, 404);
      assert.equal(await findUserByEmail(env.deps, "late@example.com"), null);
    });
  } finally {
    await env.stop();
  }
});
